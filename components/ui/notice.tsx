/** The outcome of something the user did: an error reads as one, and a success as one. */
export type Outcome = { ok: boolean; text: string };

export function OutcomeMessage({ outcome }: { outcome: Outcome | undefined }) {
  if (!outcome) return <span role="status" className="sr-only" />;
  return outcome.ok ? (
    <span role="status" className="outcome ok">
      {outcome.text}
    </span>
  ) : (
    <span role="alert" className="outcome error">
      {outcome.text}
    </span>
  );
}
