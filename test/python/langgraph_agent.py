"""A graph built with LangGraph, served over A2A with the a2a-sdk: "Sea forecast" reads the sea area out of
the question, looks up its forecast and writes the advice, one node each. The A2A executor streams the
graph (stream_mode="updates"): each node that finishes is a working status naming it, the advice is the
artifact. Deterministic nodes (no model), so the test can follow the words through Parley's plan.
This is how a team puts Parley in front of its LangGraph agents: each graph behind an A2A card.
Usage: langgraph_agent.py <port>
"""

import sys
from typing import TypedDict

from a2a.helpers import new_task_from_user_message, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import AgentSkill
from langgraph.graph import END, START, StateGraph

from a2a_serve import serve

FORECASTS = {"biscay": "west 5 to 7, moderate sea", "fastnet": "south-west 4, slight sea"}


class SeaState(TypedDict, total=False):
    question: str
    area: str
    forecast: str
    advice: str


def read_area(state: SeaState) -> SeaState:
    question = state["question"].lower()
    return {"area": next((a for a in FORECASTS if a in question), "biscay")}


def forecast(state: SeaState) -> SeaState:
    return {"forecast": FORECASTS[state["area"]]}


def advise(state: SeaState) -> SeaState:
    return {"advice": f"Sea forecast (langgraph) for {state['area'].title()}: {state['forecast']}; reef early."}


def build_graph():
    graph = StateGraph(SeaState)
    graph.add_node("read_area", read_area)
    graph.add_node("forecast", forecast)
    graph.add_node("advise", advise)
    graph.add_edge(START, "read_area")
    graph.add_edge("read_area", "forecast")
    graph.add_edge("forecast", "advise")
    graph.add_edge("advise", END)
    return graph.compile()


SKILL = AgentSkill(
    id="sea-forecast",
    name="Sea forecast",
    description="The shipping forecast for a sea area (wind, sea state) and sailing advice",
    tags=["forecast", "weather", "sailing"],
    examples=["What is the forecast for Biscay?"],
)


class GraphExecutor(AgentExecutor):
    def __init__(self) -> None:
        self.graph = build_graph()

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task or new_task_from_user_message(context.message)
        if not context.current_task:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        state: SeaState = {"question": context.get_user_input()}
        async for update in self.graph.astream(state, stream_mode="updates"):
            for node, values in update.items():
                state.update(values)
                message = new_text_message(f"langgraph node {node} done", task_id=task.id, context_id=task.context_id)
                await updater.start_work(message)
        await updater.add_artifact([new_text_part(state["advice"])], name="advice")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


if __name__ == "__main__":
    serve(int(sys.argv[1]), "Sea forecast", "A LangGraph graph for the shipping forecast", SKILL, GraphExecutor())
