import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requestSession } from "@/app/dashboard/request-session";
import { DeploymentPage } from "@/components/deployment-page";
import { roleAtLeast } from "@/server/admins";
import { getConfig } from "@/server/frame/services";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Deployment #${(await params).id}` };
}

export default async function DeploymentDetailPage({ params }: Props) {
  const id = Number((await params).id);
  if (!Number.isInteger(id) || id <= 0) notFound();
  // An admin key has no wallet to sign with: it changes statuses as an operator. A wallet (an
  // admin's too) signs its change, as a worker does.
  const session = await requestSession();
  const admin = !!session && session.via !== "wallet" && roleAtLeast(session.role, "operator");
  return <DeploymentPage id={id} chainIds={[...getConfig().siwe.chainIds]} admin={admin} />;
}
