import { AgentsTable } from "@/components/agents-table";

export default function AgentsPage() {
  return <AgentsTable />;
}
