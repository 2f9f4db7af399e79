/** The dashboard's theme choice: the system's scheme, or light or dark whatever it says. */

export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

/** A cookie, not local storage: the server reads it, so the first paint is in the right scheme. */
export const THEME_COOKIE = "agent_theme";

export function themeOf(value: string | undefined): Theme {
  return THEMES.includes(value as Theme) ? (value as Theme) : "system";
}
