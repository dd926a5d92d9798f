"""A Python MCP client (the `mcp` SDK, 2.x) against Parley, written the way Python hosts write it.

Usage: mcp_client.py <stdio | http> <legacy | auto> <target> <approval query> <specialist prefix>
  stdio  target is JSON {command, args, env, cwd}: Parley is launched as a child process with them
         (`parley mcp`); http: target is the Streamable HTTP endpoint URL (…/mcp).
  legacy the classic host code: the transport's context manager (stdio_client / streamable_http_client)
         and a ClientSession, initialize handshake (a 2025-11-25 session);
  auto   the SDK's high-level Client, which probes server/discover and speaks 2026-07-28 when the server does.
Then: tools/list; `ask` with a query whose tool call needs approval, answered by the elicitation callback
(accept every tool call), with progress; prompts/list and prompts/get `plan`; completion/complete of the
`plan` prompt's `specialist` argument. What it saw is one JSON object on stdout, checked by the vitest test.
"""

import asyncio
import json
import sys
from contextlib import asynccontextmanager

from mcp import Client, ClientSession, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client

elicited: list[str] = []


async def accept_all(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    """Parley asks one accept/deny choice per tool call: accept them all."""
    elicited.append(params.message)
    names = list(params.requested_schema.get("properties", {}))
    return types.ElicitResult(action="accept", content={name: "accept" for name in names})


@asynccontextmanager
async def connect(transport: str, mode: str, target: str):
    """A session-like object (ClientSession or Client, which share the calls used here) and its protocol version."""
    if mode == "auto":
        server = StdioServerParameters(**json.loads(target)) if transport == "stdio" else target
        async with Client(server, mode="auto", elicitation_callback=accept_all) as client:
            yield client, client.protocol_version
        return
    streams = (
        stdio_client(StdioServerParameters(**json.loads(target)))
        if transport == "stdio"
        else streamable_http_client(target)
    )
    async with streams as (read, write):
        async with ClientSession(read, write, elicitation_callback=accept_all) as session:
            initialized = await session.initialize()
            yield session, initialized.protocol_version


async def main(transport: str, mode: str, target: str, query: str, prefix: str) -> dict:
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with connect(transport, mode, target) as (peer, version):
        tools = await peer.list_tools()
        asked = await peer.call_tool("ask", {"query": query, "mode": "orchestrate"}, progress_callback=on_progress)
        prompts = await peer.list_prompts()
        plan = await peer.get_prompt("plan", {"task": "Keep a note", "specialist": prefix})
        completed = await peer.complete(
            types.PromptReference(name="plan"), argument={"name": "specialist", "value": prefix}
        )
        return {
            "protocolVersion": version,
            "tools": [t.name for t in tools.tools],
            "ask": {
                "isError": asked.is_error,
                "structured": asked.structured_content,
                "text": "\n".join(c.text for c in asked.content if c.type == "text"),
            },
            "elicited": elicited,
            "progress": progress,
            "prompts": [p.name for p in prompts.prompts],
            "planPrompt": "\n".join(m.content.text for m in plan.messages if m.content.type == "text"),
            "completion": completed.completion.values,
        }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(*sys.argv[1:6]))))
