import type { Locator, Page } from "@playwright/test";
import type { LocalAccount } from "viem";
import { TEST_ADMIN_KEY } from "../helpers/admin-key";
import { expect, injectWallet } from "./fixtures";

/** The widths every main flow runs at: a laptop, and a phone. */
export const WIDTHS = [
  { name: "1440 wide", viewport: { width: 1440, height: 900 }, suffix: "wide" },
  { name: "390 wide", viewport: { width: 390, height: 844 }, suffix: "phone" },
] as const;

/** A REST call to the test server as the admin (seeding, and checking what the page did). */
export const api = (path: string, init: RequestInit = {}, base = process.env.E2E_BASE_URL) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${TEST_ADMIN_KEY}`,
      "content-type": "application/json",
      ...init.headers,
    },
  });

export async function signInWithWallet(page: Page, wallet: LocalAccount) {
  await injectWallet(page, wallet);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/login$/);
  await page.getByRole("button", { name: /^Connect wallet/ }).click();
  await expect(page.getByTestId("address")).toHaveText(wallet.address);
  await page.getByRole("button", { name: "Sign in with Ethereum" }).click();
  await expect(page.getByTestId("who")).toHaveText(wallet.address);
}

export async function signInWithKey(page: Page) {
  await page.goto("/login");
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText("Owner (ADMIN_API_KEY)");
}

/** Follows a link of the dashboard's navigation, opening the menu first on a phone. */
export async function navigate(page: Page, label: string) {
  const menu = page.getByRole("button", { name: "Menu" });
  if (await menu.isVisible()) {
    if ((await menu.getAttribute("aria-expanded")) !== "true") await menu.click();
  }
  await page
    .getByRole("navigation", { name: "Dashboard" })
    .getByRole("link", { name: label })
    .click();
}

/** Whether the page scrolls sideways (its content is wider than the window). */
export const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

/** Creates agents through the REST API; fails the test if one is refused. */
export async function createAgents(agents: Record<string, unknown>[]) {
  for (const agent of agents) {
    const response = await api("/agents", { method: "POST", body: JSON.stringify(agent) });
    expect(response.status, JSON.stringify(agent)).toBeLessThan(300);
  }
}

/** Signs in with the admin key on the sign-in page the browser is on now (it goes on from there). */
export async function signInHere(page: Page) {
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText("Owner (ADMIN_API_KEY)");
}

/** A chat with `aid` as the admin, through REST; fails the test if it is refused. */
export async function chatAsAdmin(aid: string, q: string) {
  const response = await api(`/${aid}/chat?q=${encodeURIComponent(q)}`);
  expect(response.status, `chat with ${aid}`).toBe(200);
}

/**
 * The words inside `selector`'s elements that are split across two lines, as "AUTONOM OUS" is:
 * a word broken where it has no break opportunity. A break after a hyphen or a slash is one.
 * Text in visually hidden boxes (a screen reader's text, 1 px wide) does not count.
 */
export function wordsBrokenMidWord(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((selector) => {
    // Inside a box of a pixel or none (a screen reader's text, a phone's hidden table header).
    const hidden = (element: Element | null): boolean => {
      for (let at = element; at; at = at.parentElement) {
        const box = at.getBoundingClientRect();
        if (box.width <= 1 || box.height <= 1) return true;
      }
      return false;
    };
    const broken: string[] = [];
    for (const element of document.querySelectorAll(selector)) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (hidden(node.parentElement)) continue;
        const text = node.textContent ?? "";
        // Each piece ends after a hyphen or slash, where a line may break.
        for (const match of text.matchAll(/[^\s\-/]+[-/]*/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set(
            [...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)),
          );
          if (lines.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  }, selector);
}

/** The colour a box is painted at a point (fractions of its width and height), as [r, g, b]. */
export async function paintedColour(locator: Locator, at = { x: 0.1, y: 0.5 }) {
  const png = await locator.screenshot();
  return locator.page().evaluate(
    async ({ base64, at }) => {
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement("canvas");
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext("2d") as CanvasRenderingContext2D;
      context.drawImage(image, 0, 0);
      const x = Math.floor(image.width * at.x);
      const y = Math.floor(image.height * at.y);
      return [...context.getImageData(x, y, 1, 1).data.slice(0, 3)] as [number, number, number];
    },
    { base64: png.toString("base64"), at },
  );
}

/** A colour token of the page (`--ok`, `--warn`…), as [r, g, b]. */
export async function tokenColour(page: Page, token: string) {
  const hex = await page.evaluate(
    (token) => getComputedStyle(document.documentElement).getPropertyValue(token).trim(),
    token,
  );
  return [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

/** Which of the named colours `colour` is nearest to. */
export function nearest(colour: number[], named: Record<string, number[]>): string {
  const distance = (other: number[]) =>
    Math.hypot(...colour.map((value, i) => value - (other[i] ?? 0)));
  return Object.entries(named).sort(([, a], [, b]) => distance(a) - distance(b))[0]?.[0] ?? "";
}

/**
 * Records the text every canvas of the page draws (uPlot draws its axes' labels so), with the
 * caption of the figure the canvas is in; read it with `canvasText`. Call before the page loads.
 */
export async function recordCanvasText(page: Page) {
  await page.addInitScript(() => {
    const drawn: { text: string; figure: string }[] = [];
    (window as unknown as { __canvasText: typeof drawn }).__canvasText = drawn;
    const fillText = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, x, y, maxWidth) {
      const caption = this.canvas.closest("figure")?.querySelector("figcaption");
      drawn.push({ text: String(text), figure: caption?.textContent ?? "" });
      if (maxWidth === undefined) fillText.call(this, text, x, y);
      else fillText.call(this, text, x, y, maxWidth);
    };
  });
}

/** The text drawn on the canvases of the figure captioned `figure`, since the page loaded. */
export function canvasText(page: Page, figure: string): Promise<string[]> {
  return page.evaluate(
    (figure) =>
      (window as unknown as { __canvasText: { text: string; figure: string }[] }).__canvasText
        .filter((drawn) => drawn.figure === figure)
        .map((drawn) => drawn.text),
    figure,
  );
}
