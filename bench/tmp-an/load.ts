import autocannon from "autocannon";

const [url, accept, amount] = process.argv.slice(2);
const r = await autocannon({
  url: `${url}/cpu/chat?q=hello&chat_id=c[<id>]`,
  idReplacement: true,
  headers: { accept: accept as string },
  connections: 4,
  amount: Number(amount),
});
console.log(amount, "sent", JSON.stringify(r.statusCodeStats));
