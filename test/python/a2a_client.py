"""A Python A2A client (the a2a-sdk, v1.0) against Parley on one binding, as a peer team would write it.

Usage: a2a_client.py <base url> <binding: JSONRPC | HTTP+JSON | GRPC> <approval query>

The client is built from Parley's agent card with only the named binding allowed, then:
  send      a blocking SendMessage (no streaming) of a direct question, to a completed task;
  stream    SendStreamingMessage of a query whose tool call needs approval, to input-required;
  subscribe SubscribeToTask on that task, followed while
  resume    a message carrying the approval decision (a data part) goes on the same task, to completed;
  cancel    a second approval-waiting task is cancelled (CancelTask), and GetTask shows it canceled.
What it saw is printed as one JSON object on stdout; the vitest test (test/integration/python/) checks it.
"""

import asyncio
import json
import sys

import grpc
import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import get_data_parts, get_message_text, new_data_part, new_message, new_text_message
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    TaskState,
)


def state_of(event: StreamResponse) -> str | None:
    if event.HasField("task"):
        return TaskState.Name(event.task.status.state)
    if event.HasField("status_update"):
        return TaskState.Name(event.status_update.status.state)
    return None


def task_id_of(events: list[StreamResponse]) -> str:
    for e in events:
        if e.HasField("task"):
            return e.task.id
        if e.HasField("status_update"):
            return e.status_update.task_id
    raise RuntimeError("no task in the stream")


def approval_of(events: list[StreamResponse]) -> dict:
    """The parley.approval data part of the last input-required status."""
    for e in reversed(events):
        if e.HasField("status_update") and e.status_update.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            return get_data_parts(e.status_update.status.message.parts)[0]
        if e.HasField("task") and e.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            return get_data_parts(e.task.status.message.parts)[0]
    raise RuntimeError("no input-required status")


async def collect(stream) -> list[StreamResponse]:
    return [e async for e in stream]


def user_text(text: str) -> SendMessageRequest:
    return SendMessageRequest(message=new_text_message(text, role=Role.ROLE_USER))


async def main(base_url: str, binding: str, approval_query: str) -> dict:
    http = httpx.AsyncClient(timeout=60)
    config = dict(
        httpx_client=http,
        supported_protocol_bindings=[binding],
        use_client_preference=True,
        # Parley's gRPC interface is host:port on loopback, without TLS.
        grpc_channel_factory=lambda address: grpc.aio.insecure_channel(address),
    )
    seen: dict = {"binding": binding}
    blocking = await ClientFactory(ClientConfig(streaming=False, **config)).create_from_url(base_url)
    streaming = await ClientFactory(ClientConfig(streaming=True, **config)).create_from_url(base_url)
    try:
        # send: one blocking call, the finished task comes back.
        [reply] = await collect(blocking.send_message(user_text("What is a tide? [[route:direct]]")))
        seen["send"] = {
            "state": TaskState.Name(reply.task.status.state),
            "answer": get_message_text(reply.task.status.message),
            "artifacts": [a.name for a in reply.task.artifacts],
        }

        # stream: the run stops for the approval of its tool call.
        asked = await collect(streaming.send_message(user_text(approval_query)))
        task_id = task_id_of(asked)
        approval = approval_of(asked)
        seen["stream"] = {
            "first": "task" if asked[0].HasField("task") else "other",
            "states": [s for s in map(state_of, asked) if s],
            "approval": approval,
        }

        # subscribe while resuming: the subscription starts with the task and follows it to the end.
        followed: list[StreamResponse] = []
        attached = asyncio.Event()

        async def follow() -> None:
            async for e in streaming.subscribe(SubscribeToTaskRequest(id=task_id)):
                followed.append(e)
                attached.set()

        following = asyncio.create_task(follow())
        # Resume only once the subscription has its first event (the task), so it sees the rest.
        await asyncio.wait_for(attached.wait(), 30)
        pending = approval["pending"][0]
        decisions = {c["toolCallId"]: "accept" for c in pending["toolCalls"]}
        decision = new_message(
            [new_data_part({"request_id": pending["request_id"], "decisions": decisions})],
            task_id=task_id,
            role=Role.ROLE_USER,
        )
        resumed = await collect(streaming.send_message(SendMessageRequest(message=decision)))
        await asyncio.wait_for(following, 30)
        final = await streaming.get_task(GetTaskRequest(id=task_id))
        seen["resume"] = {
            "states": [s for s in map(state_of, resumed) if s],
            "subscribed": [s for s in map(state_of, followed) if s],
            "subscribedFirst": "task" if followed and followed[0].HasField("task") else "other",
            "final": TaskState.Name(final.status.state),
            "answer": get_message_text(final.status.message),
        }

        # cancel: a task that waits for a human is cancelled, and stays so.
        waiting = await collect(streaming.send_message(user_text(approval_query)))
        waiting_id = task_id_of(waiting)
        cancelled = await streaming.cancel_task(CancelTaskRequest(id=waiting_id))
        after = await streaming.get_task(GetTaskRequest(id=waiting_id))
        seen["cancel"] = {
            "before": state_of(waiting[-1]),
            "returned": TaskState.Name(cancelled.status.state),
            "after": TaskState.Name(after.status.state),
        }
    finally:
        await blocking.close()
        await streaming.close()
        await http.aclose()
    return seen


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))))
