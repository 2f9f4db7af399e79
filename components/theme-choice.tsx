"use client";

import { useEffect, useState } from "react";
import { THEME_COOKIE, type Theme, themeOf } from "./theme";
import { Field } from "./ui/field";
import { Select } from "./ui/select";

const ONE_YEAR_S = 365 * 24 * 60 * 60;

/**
 * Light, dark, or as the system says: applied at once to this page (data-theme on <html>) and
 * kept in a cookie for the next ones (app/layout.tsx reads it).
 */
export function ThemeChoice() {
  const [theme, setTheme] = useState<Theme>("system");
  useEffect(() => {
    setTheme(themeOf(document.documentElement.dataset.theme));
  }, []);

  function choose(next: Theme) {
    setTheme(next);
    if (next === "system") {
      delete document.documentElement.dataset.theme;
      // biome-ignore lint/suspicious/noDocumentCookie: one plain preference, read by the server.
      document.cookie = `${THEME_COOKIE}=; path=/; max-age=0; samesite=lax`;
    } else {
      document.documentElement.dataset.theme = next;
      // biome-ignore lint/suspicious/noDocumentCookie: one plain preference, read by the server.
      document.cookie = `${THEME_COOKIE}=${next}; path=/; max-age=${ONE_YEAR_S}; samesite=lax`;
    }
  }

  return (
    <Field name="theme" label="Theme">
      {(control) => (
        <Select
          {...control}
          value={theme}
          onChange={(event) => choose(themeOf(event.currentTarget.value))}
        >
          <option value="system">As the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </Select>
      )}
    </Field>
  );
}
