export type NodeVersionProblem = { fatal: boolean; message: string };
export function nodeVersionProblem(
  version: string,
  range: string | undefined,
): NodeVersionProblem | undefined;
export function checkNodeVersion(): void;
