import type { Metadata } from "next";
import { SignInPage } from "@/components/wallet/sign-in";

export const metadata: Metadata = { title: "Sign in" };

export default function LoginPage() {
  return <SignInPage />;
}
