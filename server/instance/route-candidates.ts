/** A dynamic route of the build's manifest, as the server entry matches it. */
export type DynamicRoute = {
  page: string;
  pattern: RegExp;
  /** The pattern's named groups, with the parameter each is. */
  keys: { group: string; name: string; catchAll: boolean }[];
};

/**
 * The dynamic routes a path may match, in the router's order: those whose first segment is the
 * path's own or a parameter. Others cannot match, and trying them all would cost every chat, whose
 * `/[aid]/chat` comes last in the router's order.
 */
export function routesByFirstSegment(routes: DynamicRoute[]): (pathname: string) => DynamicRoute[] {
  const literal = (route: DynamicRoute) => {
    const first = route.page.split("/")[1] ?? "";
    return first.startsWith("[") ? undefined : first;
  };
  const anyFirst = routes.filter((route) => literal(route) === undefined);
  const byFirst = new Map<string, DynamicRoute[]>();
  for (const first of new Set(routes.map(literal))) {
    if (first === undefined) continue;
    byFirst.set(
      first,
      routes.filter((route) => {
        const own = literal(route);
        return own === undefined || own === first;
      }),
    );
  }
  return (pathname) => {
    const end = pathname.indexOf("/", 1);
    return byFirst.get(end === -1 ? pathname.slice(1) : pathname.slice(1, end)) ?? anyFirst;
  };
}
