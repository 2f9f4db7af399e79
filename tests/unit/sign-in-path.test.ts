import { describe, expect, it } from "vitest";
import { dashboardPathOrNull, signInPath } from "@/server/auth/view";

/** Where signing in leads: back to the dashboard page asked for, never away from the dashboard. */

describe("the page signing in leads back to", () => {
  it("keeps a dashboard path with its query and fragment", () => {
    expect(dashboardPathOrNull("/dashboard")).toBe("/dashboard");
    expect(dashboardPathOrNull("/dashboard/agents/support-bot")).toBe(
      "/dashboard/agents/support-bot",
    );
    expect(dashboardPathOrNull("/dashboard/agents?quota=near&sort=quota#x")).toBe(
      "/dashboard/agents?quota=near&sort=quota#x",
    );
  });

  it("refuses anything that could lead elsewhere", () => {
    for (const next of [
      undefined,
      null,
      "",
      "dashboard",
      "https://evil.example/dashboard",
      "//evil.example/dashboard",
      "/\\evil.example/dashboard",
      "/dashboard\\..\\..\\evil",
      "\\\\evil.example",
      "javascript:alert(1)",
      "/dashboardx",
      "/login",
      "/api/trpc/auth.signOut",
      "/dashboard/../api/trpc/auth.signOut",
      "/dashboard/%2e%2e/login",
      "/dashboard/\n//evil.example",
      "/dashboard\t",
      `/dashboard/${"a".repeat(3000)}`,
    ]) {
      expect(dashboardPathOrNull(next), String(next)).toBeNull();
    }
  });

  it("writes the sign-in page's address with the page to go back to", () => {
    expect(signInPath("/dashboard/agents/support-bot")).toBe(
      "/login?next=%2Fdashboard%2Fagents%2Fsupport-bot",
    );
    expect(signInPath("/dashboard/agents?q=a&quota=near", true)).toBe(
      "/login?ended=1&next=%2Fdashboard%2Fagents%3Fq%3Da%26quota%3Dnear",
    );
    // The start page needs no `next`; another site's address is left out.
    expect(signInPath("/dashboard")).toBe("/login");
    expect(signInPath("https://evil.example/", true)).toBe("/login?ended=1");
    expect(signInPath(null)).toBe("/login");
  });
});
