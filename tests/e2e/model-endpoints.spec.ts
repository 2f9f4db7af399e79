import { TEST_ADMIN_KEY } from "../helpers/admin-key";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { expect, test } from "./fixtures";

/**
 * An agent's model endpoints in the dashboard (issue #48): added with a key that is never shown
 * again, used by the chat, edited with the key kept, reordered, removed; the form at 390 px.
 * A service of its own, whose fake model is on loopback, which MODEL_ALLOWED_HOSTS lists.
 */

let service: ModelServer;
let baseURL: string;

test.beforeAll(async () => {
  service = await startModelServer("pglite", {
    SCHEDULER: "off",
    MODEL_ALLOWED_HOSTS: "127.0.0.1",
  });
  baseURL = `http://localhost:${new URL(service.server.url).port}`;
  const created = await fetch(`${baseURL}/agents`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ aid: "e2e-models" }),
  });
  expect(created.status).toBe(201);
});

test.afterAll(async () => {
  await service?.stop();
});

test("an admin adds, uses, edits, reorders and removes model endpoints, keys never shown", async ({
  page,
}) => {
  const agent = async () =>
    (
      await fetch(`${baseURL}/agents/e2e-models`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
      })
    ).json();
  await page.goto(`${baseURL}/login`);
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText("Owner (ADMIN_API_KEY)");
  await page.goto(`${baseURL}/dashboard/agents/e2e-models`);
  const models = page.getByRole("region", { name: "Model endpoints" });

  // Added with a key; a host the service may not reach is refused beside its field first.
  await models.getByRole("button", { name: "Add model endpoint" }).click();
  const form = page.getByRole("form", { name: "Add a model endpoint" });
  await expect(form.getByLabel("Endpoint name")).toBeFocused();
  await form.getByLabel("Endpoint name").fill("primary");
  await form.getByLabel("Base URL").fill("http://10.1.2.3/v1");
  await form.getByLabel("Model", { exact: true }).fill("model-e2e");
  await form.getByLabel("Key", { exact: true }).fill("sk-e2e-endpoint-key-0123456789");
  await form.getByRole("button", { name: "Add endpoint" }).click();
  await expect(form.locator("#endpoint_url-error")).toContainText("MODEL_ALLOWED_HOSTS");
  await expect(form.getByLabel("Base URL")).toBeFocused();
  await form.getByLabel("Base URL").fill(service.fake.baseUrl);
  await form.getByRole("button", { name: "Add endpoint" }).click();
  await expect(models.getByRole("status").filter({ hasText: "Saved primary." })).toBeVisible();
  await expect(models.getByTestId("model-endpoint")).toContainText("stored (…6789)");
  expect(JSON.stringify(await agent())).not.toContain("sk-e2e-endpoint-key");

  // The chat goes to it, with its key and model.
  await page.getByLabel("Message", { exact: true }).fill("Hello endpoint");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("chat-log")).toContainText("Hello from the fake model.");
  expect(service.fake.requests.at(-1)?.model).toBe("model-e2e");
  expect(service.fake.headers.at(-1)?.authorization).toBe("Bearer sk-e2e-endpoint-key-0123456789");

  // Edited: the key kept, the model changed.
  await models.getByRole("button", { name: "Edit primary" }).click();
  const edit = page.getByRole("form", { name: "Edit model endpoint primary" });
  await expect(edit.getByLabel("API key")).toHaveValue("keep");
  await edit.getByLabel("Model", { exact: true }).fill("model-e2e-2");
  await edit.getByRole("button", { name: "Save endpoint" }).click();
  await expect(models.getByRole("status").filter({ hasText: "Saved primary." })).toBeVisible();
  expect((await agent()).model_endpoints[0]).toMatchObject({
    model: "model-e2e-2",
    api_key: { secret: true, hint: "…6789" },
  });

  // A second, without a key, then tried first.
  await models.getByRole("button", { name: "Add model endpoint" }).click();
  const second = page.getByRole("form", { name: "Add a model endpoint" });
  await second.getByLabel("Endpoint name").fill("backup");
  await second.getByLabel("Base URL").fill(service.fake.baseUrl);
  await second.getByLabel("Model", { exact: true }).fill("model-b");
  await second.getByLabel("API key").selectOption("none");
  await second.getByRole("button", { name: "Add endpoint" }).click();
  await expect(models.getByTestId("model-endpoint")).toHaveCount(2);
  await models.getByRole("button", { name: "Try backup earlier" }).click();
  await expect(
    models.getByRole("status").filter({ hasText: "backup is now tried before primary." }),
  ).toBeVisible();
  expect((await agent()).model_endpoints.map((e: { name: string }) => e.name)).toEqual([
    "backup",
    "primary",
  ]);
  expect((await agent()).model_endpoints[1].api_key).toEqual({ secret: true, hint: "…6789" });

  // At 390 px the form and the list fit the screen: no sideways scroll.
  await page.setViewportSize({ width: 390, height: 800 });
  await models.getByRole("button", { name: "Edit primary" }).click();
  await expect(page.getByRole("form", { name: "Edit model endpoint primary" })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(
    true,
  );
  await page
    .getByRole("form", { name: "Edit model endpoint primary" })
    .getByRole("button", { name: "Cancel" })
    .click();
  await expect(models.getByRole("button", { name: "Edit primary" })).toBeFocused();

  // Removed, after asking.
  await models.getByRole("button", { name: "Remove backup" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Remove endpoint" }).click();
  await expect(models.getByRole("status").filter({ hasText: "Removed backup." })).toBeVisible();
  await expect(models.getByTestId("model-endpoint")).toHaveCount(1);
  expect((await agent()).model_endpoints.map((e: { name: string }) => e.name)).toEqual(["primary"]);
});
