"""A Python A2A agent built with the a2a-sdk: "Tide tables" answers with the tide times of a port.

It streams as A2A agents do: the task, a working status with progress text, its answer as an artifact
in two chunks (the second appended to the first), then completed. Deterministic (no model), so the
test can follow its words through Parley's plan, verifier and synthesizer.
Usage: tide_agent.py <port>
"""

import asyncio
import sys

from a2a.helpers import new_task_from_user_message, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import AgentSkill

from a2a_serve import serve

SKILL = AgentSkill(
    id="tide-times",
    name="Tide times",
    description="High and low water times for a harbour from the tide tables",
    tags=["tides", "harbour", "sailing"],
    examples=["When is high water at Brest?"],
)


class TideExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task or new_task_from_user_message(context.message)
        if not context.current_task:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        question = context.get_user_input()
        await updater.start_work(new_text_message("reading the tide tables", task_id=task.id, context_id=task.context_id))
        await asyncio.sleep(0.05)
        await updater.add_artifact(
            [new_text_part("Tide tables (python a2a-sdk): high water at Brest 06:12 and 18:40")],
            artifact_id="tides",
            name="tides",
        )
        await updater.add_artifact(
            [new_text_part(f"; low water 00:05 and 12:27. Asked: {question[:80]}")],
            artifact_id="tides",
            append=True,
            last_chunk=True,
        )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


if __name__ == "__main__":
    serve(int(sys.argv[1]), "Tide tables", "Knows the tides of the harbours of Brittany", SKILL, TideExecutor())
