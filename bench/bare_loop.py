"""The baseline: a bare ``openai.AsyncOpenAI`` loop sending the same requests as the gate at the same
concurrency (one semaphore slot per request), for every case and trial of a workload manifest.

    python bench/bare_loop.py MANIFEST.json --base-url URL --concurrency N

Prints one JSON line: requests sent, wall seconds, failures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time


async def run(manifest: dict, base_url: str, concurrency: int) -> dict:
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench-key", max_retries=0, timeout=60)
    semaphore = asyncio.Semaphore(concurrency)
    tools = manifest["tools"]
    model = manifest["model"]
    mock = json.dumps(manifest["mock_result"], sort_keys=True)
    sent = 0
    failures = 0

    async def create(messages: list) -> object:
        nonlocal sent
        async with semaphore:
            sent += 1
            return await client.chat.completions.create(
                model=model, messages=messages, tools=tools, temperature=0
            )

    async def trial(case: dict) -> None:
        nonlocal failures
        messages = [{"role": "system", "content": case["system"]}, {"role": "user", "content": case["input"]}]
        first = await create(messages)
        message = first.choices[0].message
        calls = message.tool_calls or []
        messages.append(
            {
                "role": "assistant",
                "content": message.content,
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.function.name, "arguments": c.function.arguments},
                    }
                    for c in calls
                ],
            }
        )
        for call in calls:
            json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": mock})
        second = await create(messages)
        if "42" not in (second.choices[0].message.content or ""):
            failures += 1

    trials = manifest["workload"]["trials"]
    started = time.perf_counter()
    async with client:
        await asyncio.gather(*(trial(case) for case in manifest["cases"] for _ in range(trials)))
    return {"requests": sent, "wall": time.perf_counter() - started, "failures": failures}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("manifest")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--concurrency", type=int, required=True)
    args = parser.parse_args(argv)
    with open(args.manifest, encoding="utf-8") as handle:
        manifest = json.load(handle)
    print(json.dumps(asyncio.run(run(manifest, args.base_url, args.concurrency))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
