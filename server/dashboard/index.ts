// The dashboard overview's figures.
export { overview, overviewSchema } from "./overview";
