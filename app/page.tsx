export default function Home() {
  return (
    <main className="home">
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
        <li>
          <a href="/docs">/docs</a>: the REST API, to read and try
        </li>
      </ul>
    </main>
  );
}
