"""Serving an A2A agent with the a2a-sdk (v1.0), the way its own samples do: the SDK's request handler and
in-memory task store behind its Starlette routes (the agent card at /.well-known/agent-card.json and
JSON-RPC at /a2a), run by uvicorn on 127.0.0.1. The agents (tide_agent.py, langgraph_agent.py) bring
their executor and skills; Parley reads the card and calls them as specialists."""

import uvicorn
from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette


def serve(port: int, name: str, description: str, skill: AgentSkill, executor: AgentExecutor) -> None:
    card = AgentCard(
        name=name,
        description=description,
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=f"http://127.0.0.1:{port}/a2a", protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[skill],
    )
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/a2a")])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
