/** Joins the class names given, leaving out the ones that are not set. */
export function cx(...names: (string | false | null | undefined)[]): string {
  return names.filter(Boolean).join(" ");
}
