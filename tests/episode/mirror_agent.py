"""An agent program that does what the gate's own loop (the model agent) does, in the standard library:
the same system prompt and token limit, the tools the mock MCP server lists, each tool call answered
through that server, each model reply until one without calls is the answer. It speaks the protocol
of docs/agent-programs.md. A request the gate refuses, or that fails, ends it without an answer (the
gate has said why the trial ended).

    python mirror_agent.py SYSTEM_PROMPT MAX_TOKENS
"""

import json
import os
import sys
import urllib.error
import urllib.request

SYSTEM, MAX_TOKENS = sys.argv[1], int(sys.argv[2])
MCP = os.environ["TOOL_EVAL_GATE_MCP_URL"]
MODEL = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
AUTH = {"authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}
session = {}


def post(url, body, headers):
    headers = {"content-type": "application/json", **headers}
    request = urllib.request.Request(url, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.headers, json.load(response)


def mcp(method, params):
    headers = {"accept": "application/json, text/event-stream", **session}
    found, answer = post(MCP, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, headers)
    if found.get("mcp-session-id"):
        session["mcp-session-id"] = found["mcp-session-id"]
    return answer["result"]


def chat_message(given):
    """A message of the case's history in the chat-completions form."""
    if given["role"] == "tool":
        return {"role": "tool", "tool_call_id": given["call_id"], "content": given["content"]}
    message = {"role": given["role"], "content": given["content"]}
    if given.get("tool_calls"):
        message["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in given["tool_calls"]
        ]
    return message


def result_text(result):
    text = "".join(part.get("text", "") for part in result["content"])
    return f"Error: {text}" if result.get("isError") and not text.lower().startswith("error") else text


def turn(messages, tools):
    """Ask the model until a reply without calls: its text."""
    while True:
        body = {"model": "agent-model", "messages": messages, "tools": tools, "max_tokens": MAX_TOKENS}
        try:
            _, reply = post(MODEL, body, AUTH)
        except urllib.error.HTTPError:
            sys.exit(1)  # refused or failed: the gate says why the trial ended
        message = reply["choices"][0]["message"]
        messages.append({k: v for k, v in message.items() if v is not None})
        if not message.get("tool_calls") or reply["choices"][0]["finish_reason"] == "length":
            return message.get("content") or ""
        for call in message["tool_calls"]:
            arguments = json.loads(call["function"]["arguments"])
            result = mcp("tools/call", {"name": call["function"]["name"], "arguments": arguments})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result_text(result)})


mcp(
    "initialize",
    {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}},
)
tools = [
    {
        "type": "function",
        "function": {"name": t["name"], "description": t["description"], "parameters": t["inputSchema"]},
    }
    for t in mcp("tools/list", {})["tools"]
]
messages = [{"role": "system", "content": SYSTEM}]
for line in sys.stdin:
    said = json.loads(line)
    messages += [chat_message(m) for m in said.get("history", [])]
    messages.append({"role": "user", "content": said["content"]})
    print(json.dumps({"content": turn(messages, tools)}), flush=True)
