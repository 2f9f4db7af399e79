/** A complete, valid proposal for deployments created in tests. */
export const sampleProposal = {
  init_cost: 100,
  maintenance_cost: 10,
  pay_period: 30,
  accept_currency: "USDC",
  cost: 12.5,
  fit: 0.93,
  throughput: 250.5,
  sla: 99.9,
  error_rate: 0.01,
  rank: 1,
};
