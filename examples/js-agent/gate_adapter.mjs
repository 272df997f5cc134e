// The adapter between tool-eval-gate and the order agent: the gate's messages in, the agent's answers
// out. The protocol is read in one place (turns, answer); a trial's first message builds the trial's
// clients (one process may run many trials: reuse: true) and brings the case's earlier turns,
// converted to Chat Completions messages (an earlier tool call becomes an assistant message's
// tool_calls, its result a tool message); later messages (a simulated user's) continue the
// conversation.

import { createInterface } from "node:readline";
import { McpClient, OrderAgent } from "./agent.mjs";

// One user message to answer per line the gate writes; the first of a trial carries the suite, the
// case, the trial, its variables and `history`, the case's earlier turns, and with reuse: true `env`,
// the trial's addresses and token, put in process.env before the trial's clients are built.
async function* turns(input = process.stdin) {
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    Object.assign(process.env, message.env ?? {});
    yield { content: message.content, startsTrial: "case" in message, history: message.history ?? [] };
  }
}

function answer(text) {
  process.stdout.write(JSON.stringify({ content: text }) + "\n");
}

// The gate's history ({role, content}; tool_calls [{id, name, arguments}]; tool results
// {role: "tool", call_id, name, content, is_error}) as Chat Completions messages.
function chatMessages(history) {
  return history.map((message) => {
    if (message.role === "tool") {
      return { role: "tool", tool_call_id: message.call_id, content: message.content };
    }
    if (message.tool_calls?.length) {
      const toolCalls = message.tool_calls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }));
      return { role: message.role, content: message.content, tool_calls: toolCalls };
    }
    return { role: message.role, content: message.content };
  });
}

// The trial's clients: its MCP session and the agent's model client (from the addresses in process.env).
async function trialAgent(history) {
  const url = process.env.TOOL_EVAL_GATE_MCP_URL ?? process.env.ORDERS_MCP_URL;
  if (!url) throw new Error("set ORDERS_MCP_URL (the shop's MCP server)");
  const mcp = new McpClient(url);
  return new OrderAgent(mcp, await mcp.connect(), chatMessages(history));
}

async function main() {
  let agent;
  for await (const turn of turns()) {
    if (turn.startsTrial) agent = await trialAgent(turn.history);
    answer(await agent.reply(turn.content));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
