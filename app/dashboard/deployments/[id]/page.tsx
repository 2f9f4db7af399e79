import { notFound } from "next/navigation";
import { DeploymentPage } from "@/components/deployment-page";

export default async function DeploymentDetailPage({
  params,
}: {
  params: Promise<{ id: string }>;
}) {
  const id = Number((await params).id);
  if (!Number.isInteger(id) || id <= 0) notFound();
  return <DeploymentPage id={id} />;
}
