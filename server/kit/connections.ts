import { Agent } from "undici";
import type { HostRule } from "@/server/kit/allowed-hosts";
import { guardedLookup } from "@/server/kit/outgoing";

/**
 * One keep-alive pool per origin for requests a user's configuration points somewhere (webhook
 * endpoints, agents' model endpoints), so a busy one pays no handshake per request, and every
 * connection's DNS answer is judged by the outgoing rule. At most 64 origins: the oldest goes.
 */
export class Connections {
  private readonly agents = new Map<string, Agent>();

  constructor(
    private readonly options: {
      rules: readonly HostRule[];
      /** Bounds connecting, the headers and each pause in the body; none when left out. */
      timeoutMs?: number;
      /** Connections a pool may open; unbounded when left out. */
      connections?: number;
    },
  ) {}

  for(url: URL): Agent {
    let agent = this.agents.get(url.origin);
    if (agent) return agent;
    if (this.agents.size >= 64) {
      const [origin, oldest] = this.agents.entries().next().value as [string, Agent];
      this.agents.delete(origin);
      void oldest.close().catch(() => {});
    }
    const { timeoutMs, connections, rules } = this.options;
    agent = new Agent({
      connect: {
        ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
        lookup: guardedLookup(url, rules),
      },
      // undici's own bounds (300 s) stay when none is given: the call's deadline ends it sooner.
      ...(timeoutMs === undefined ? {} : { headersTimeout: timeoutMs, bodyTimeout: timeoutMs }),
      keepAliveTimeout: 4_000,
      ...(connections === undefined ? {} : { connections }),
    });
    this.agents.set(url.origin, agent);
    return agent;
  }

  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((agent) => agent.destroy().catch(() => {})));
  }
}
