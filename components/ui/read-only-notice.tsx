import { aRole } from "./format";
import { Notice } from "./notice";

/**
 * Why a page shows no control to change what it shows: the role signed in may only read it.
 * One sentence, the same on every page, so a viewer knows it is the role and not a fault.
 */
export function ReadOnlyNotice({
  role,
  what,
  changers = "operators and owners",
}: {
  role: string;
  /** What the page's changes are about: "agents", "prices". */
  what: string;
  changers?: string;
}) {
  return (
    <Notice variant="neutral" testId="read-only">
      Only {changers} change {what}: you are signed in as {aRole(role)}, so this page is read-only.
    </Notice>
  );
}
