import type { Metadata } from "next";
import { notFound } from "next/navigation";

export const metadata: Metadata = { title: "Page not found" };

/**
 * Any dashboard address no page has: the dashboard's not-found page, inside its frame (an
 * address Next.js cannot match otherwise gets the service-wide one, outside the frame).
 */
export default function MissingPage(): never {
  notFound();
}
