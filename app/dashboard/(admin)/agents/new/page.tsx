import { AgentForm } from "@/components/agent-form";

export default function NewAgentPage() {
  return (
    <>
      <h1>New agent</h1>
      <AgentForm />
    </>
  );
}
