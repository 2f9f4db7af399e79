export default function Home() {
  return (
    <main style={{ maxWidth: "40rem", margin: "4rem auto", padding: "0 1rem", lineHeight: 1.6 }}>
      <h1>Agent Service</h1>
      <p>AI agents with exact per-agent quotas, autonomous runs and worker deployments.</p>
      <p>
        <a href="/dashboard">Open the dashboard</a>
      </p>
      <ul>
        <li>
          <a href="/health">/health</a>: service health
        </li>
        <li>
          <a href="/openapi.json">/openapi.json</a>: the REST API (OpenAPI 3.1)
        </li>
      </ul>
    </main>
  );
}
