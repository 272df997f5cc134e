// An order-support agent for a small web shop, on the official `openai` npm package: it streams Chat
// Completions and takes its tools from an MCP server (Streamable HTTP). In production that is the
// shop's own server (ORDERS_MCP_URL); under tool-eval-gate it is the suite's mocks, served at
// TOOL_EVAL_GATE_MCP_URL. The SDK reads OPENAI_BASE_URL and OPENAI_API_KEY, so under the gate its
// requests go through the gate's recording proxy without a line of code changed.
//
// gate_adapter.mjs is the adapter to the gate's protocol: one JSON line in per user message, one
// JSON line out per answer.

import OpenAI from "openai";

const MODEL = process.env.ORDER_AGENT_MODEL ?? "gpt-4.1-mini";
const INSTRUCTIONS = `You are the order-support assistant of Brightside Goods, a small web shop.
Look orders up before you say anything about them, and refund an order only when the customer asks
for it and gives a reason. Order numbers look like A-1001. Answer in one or two short sentences.`;
const MAX_STEPS = 6;

// -- a minimal MCP client (Streamable HTTP, JSON replies) ----------------------------------------

export class McpClient {
  constructor(url) {
    this.url = url;
    this.session = undefined;
    this.nextId = 1;
  }

  async post(message) {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (this.session) headers["mcp-session-id"] = this.session;
    const response = await fetch(this.url, { method: "POST", headers, body: JSON.stringify(message) });
    this.session = response.headers.get("mcp-session-id") ?? this.session;
    if (response.status === 202) return undefined;
    const text = await response.text();
    const data = text.startsWith("event:") || text.startsWith("data:")
      ? JSON.parse(text.split("\n").find((line) => line.startsWith("data:")).slice(5))
      : JSON.parse(text);
    if (data.error) throw new Error(`MCP ${message.method}: ${data.error.message}`);
    return data.result;
  }

  request(method, params = {}) {
    return this.post({ jsonrpc: "2.0", id: this.nextId++, method, params });
  }

  async connect() {
    await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "brightside-order-agent", version: "1.0.0" },
    });
    await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    const { tools } = await this.request("tools/list");
    return tools;
  }

  async call(name, args) {
    const result = await this.request("tools/call", { name, arguments: args });
    const text = result.content.filter((part) => part.type === "text").map((part) => part.text).join("\n");
    return result.isError ? `Error: ${text}` : text;
  }
}

// -- the agent ------------------------------------------------------------------------------------

export class OrderAgent {
  // `history`: earlier messages of the conversation (Chat Completions messages), to continue from.
  constructor(mcp, tools, history = []) {
    this.client = new OpenAI();
    this.mcp = mcp;
    this.tools = tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
    this.messages = [{ role: "system", content: INSTRUCTIONS }, ...history];
  }

  async reply(text) {
    this.messages.push({ role: "user", content: text });
    for (let step = 0; step < MAX_STEPS; step++) {
      const stream = this.client.chat.completions.stream({
        model: MODEL,
        messages: this.messages,
        tools: this.tools,
        temperature: 0,
        stream_options: { include_usage: true },
      });
      const message = await stream.finalMessage();
      this.messages.push(message);
      if (!message.tool_calls?.length) return message.content ?? "";
      for (const call of message.tool_calls) {
        let content;
        try {
          content = await this.mcp.call(call.function.name, JSON.parse(call.function.arguments || "{}"));
        } catch (error) {
          content = `Error: ${error.message}`;
        }
        this.messages.push({ role: "tool", tool_call_id: call.id, content });
      }
    }
    return "Sorry, I could not finish that. A colleague will get back to you.";
  }
}
