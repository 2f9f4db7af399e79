import type { Db } from "@/db/client";
import type { StoredWebhookAttempt } from "@/db/schema";
import type { WebhooksConfig } from "@/server/frame/config";
import { ClaimLoop } from "@/server/kit/claim-loop";
import type { Clock } from "@/server/kit/clock";
import { Connections } from "@/server/kit/connections";
import { log, metrics } from "@/server/observability";
import { type AttemptResult, attemptDelivery } from "./attempt";
import { afterFailure, giveUpTime } from "./backoff";
import { type ClaimedDelivery, claimDue, recordAttempt, type Settled } from "./claims";
import { openSecret } from "./secrets";

/** Sends webhooks: claims due deliveries, sends them and records the attempts (claim-loop.ts). */
export class WebhookSender {
  private readonly loop: ClaimLoop<ClaimedDelivery>;
  private readonly connections: Connections;
  private readonly attempts = new Set<Promise<void>>();
  private heldBack = false;
  private readonly leaseMs: number;

  constructor(
    private readonly ctx: { db: Db; clock: Clock },
    private readonly options: {
      config: WebhooksConfig;
      secretKey: Uint8Array;
      /** The jitter's randomness (tests choose it). */
      random?: () => number;
    },
  ) {
    const { config } = options;
    this.connections = new Connections({
      rules: config.allowedHosts,
      timeoutMs: config.timeoutMs,
      connections: config.concurrency,
    });
    // A claim holds a delivery this long: an attempt's bounds (connecting, then the answer), and
    // room to record it.
    this.leaseMs = 2 * config.timeoutMs + 30_000;
    this.loop = new ClaimLoop({
      everyMs: config.pollMs,
      concurrency: config.concurrency,
      minClaim: Math.max(1, Math.ceil(config.concurrency / 4)),
      failedPass: "Webhook sender failed; trying again at its next poll",
      claim: (room) => this.claim(room),
      work: (delivery) => {
        const done: Promise<void> = this.attempt(delivery).finally(() =>
          this.attempts.delete(done),
        );
        this.attempts.add(done);
        return done;
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  /** One pass of the claim loop; returns how many it claimed (`idle()` waits for them). */
  pass(): Promise<number> {
    return this.loop.pass();
  }

  idle(): Promise<void> {
    return this.loop.idle();
  }

  async stop(graceMs: number): Promise<boolean> {
    const finished = await this.loop.stop(graceMs);
    await this.connections.close();
    return finished;
  }

  private async claim(room: number): Promise<{ claimed: ClaimedDelivery[]; more: boolean }> {
    const { config } = this.options;
    // The last claim left deliveries held by their endpoints' bounds: the next is worth making
    // once one of this process's attempts ends, or at the poll's time for other instances' ones.
    if (this.heldBack && this.attempts.size > 0) await this.oneEnds(config.pollMs);
    const { claimed, held } = await claimDue(this.ctx.db, {
      now: this.ctx.clock.now(),
      limit: room,
      leaseMs: this.leaseMs,
      perEndpoint: config.endpointConcurrency,
    });
    this.heldBack = held && claimed.length < room;
    const waiting = this.attempts.size + claimed.length > 0;
    return { claimed, more: claimed.length >= room || (this.heldBack && waiting) };
  }

  private async oneEnds(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      ...this.attempts,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    try {
      await this.deliver(delivery);
    } catch (error) {
      // Not recorded: the claim's lease runs out and the delivery is sent again.
      log.error(
        { err: error, delivery_id: delivery.id },
        `Webhook delivery ${delivery.id}: the attempt could not be recorded; it is sent again after its lease`,
      );
    }
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const { config, secretKey } = this.options;
    const at = this.ctx.clock.now();
    const secret = openSecret(secretKey, delivery.sealedSecret, delivery.endpointId);
    const result: AttemptResult = secret
      ? await attemptDelivery(
          { url: delivery.url, secret, webhookId: delivery.webhookId, body: delivery.body, at },
          {
            connections: this.connections,
            rules: config.allowedHosts,
            timeoutMs: config.timeoutMs,
          },
        )
      : {
          delivered: false,
          statusCode: null,
          durationMs: 0,
          excerpt: null,
          error:
            "The endpoint's secret cannot be read (was ADMIN_API_KEY changed?); nothing was sent. Rotate the secret.",
        };
    const now = this.ctx.clock.now();
    const giveUp = giveUpTime(delivery, config.retryWindowMs);
    const settled: Settled = result.delivered
      ? { status: "delivered" }
      : settle(
          afterFailure(now, delivery.attempt, giveUp, {
            baseMs: config.retryBaseMs,
            ...(this.options.random ? { random: this.options.random } : {}),
          }),
        );
    const attempt: StoredWebhookAttempt = {
      attempt: delivery.attempt,
      at: at.toISOString(),
      status_code: result.statusCode,
      duration_ms: result.durationMs,
      response_excerpt: result.excerpt,
      error: result.error,
    };
    const { recorded, disabled } = await recordAttempt(this.ctx.db, delivery, {
      attempt,
      settled,
      now,
      windowStart: new Date(now.getTime() - config.retryWindowMs),
      failingFrom: new Date(giveUp.getTime() - config.retryWindowMs),
      disableReason: `Disabled at ${now.toISOString()}: every delivery failed for the whole retry window (${hours(config.retryWindowMs)}); the last attempt: ${result.error ?? "failed"} PATCH {"enabled": true} starts deliveries again.`,
    });
    if (!recorded) return;
    metrics.webhookAttempts.inc({
      result: settled.status === "pending" ? "retrying" : settled.status,
    });
    if (disabled)
      log.warn(
        { endpoint_id: delivery.endpointId },
        `Webhook endpoint ${delivery.endpointId} failed for the whole retry window and was disabled.`,
      );
  }
}

function settle(next: ReturnType<typeof afterFailure>): Settled {
  return "giveUp" in next ? { status: "failed" } : { status: "pending", retryAt: next.retryAt };
}

function hours(ms: number): string {
  const h = ms / 3_600_000;
  return h >= 1 ? `${Number(h.toFixed(2))} h` : `${Number((ms / 1000).toFixed(1))} s`;
}
