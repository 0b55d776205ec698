"""Redis state store, for several receiver replicas sharing one state.

Each multi-step change is one Lua script, so replicas never see half of it. Keys share the prefix
``argocd-lifecycle:receiver:``; scripts build their keys from it, so this expects one Redis (or a
primary), not Redis Cluster. Outbox items are hashes; each destination has a sorted set of its
pending items by (due time, sequence), which is the delivery order.
"""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from argocd_lifecycle.notifications.receiver.silences import Silence
from argocd_lifecycle.notifications.receiver.state import (
    DEAD,
    DELIVERED,
    PENDING,
    Ingest,
    OutboxItem,
    StateError,
    translated,
)

PREFIX = "argocd-lifecycle:receiver:"
_INSERT = """
local function insert(p, id, receiver, group, payload, now, not_before, retention)
  local seq = redis.call('INCR', p .. 'seq')
  local member = string.format('%020d', seq) .. ':' .. id
  redis.call('HSET', p .. 'item:' .. id, 'id', id, 'seq', seq, 'receiver', receiver, 'group_key', group,
    'payload', payload, 'state', 'pending', 'attempts', 0, 'created', now, 'not_before', not_before,
    'next_attempt', not_before, 'claimed_until', 0, 'last_error', '', 'member', member)
  redis.call('ZADD', p .. 'due:' .. receiver, not_before, member)
  redis.call('ZADD', p .. 'idx:pending', seq, id)
  if group ~= '' then redis.call('SET', p .. 'group:' .. receiver .. ':' .. group, id, 'EX', retention) end
end
"""
_RECORD = (
    _INSERT
    + """
local p, fp, now, until_, ttl, flap, retention = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local seen = redis.call('GET', p .. 'dedupe:' .. fp)
if seen and tonumber(seen) > tonumber(now) then return 0 end
redis.call('SET', p .. 'dedupe:' .. fp, until_, 'PX', ttl)
if flap ~= '' then
  redis.call('ZADD', p .. 'flap:' .. flap, now, now .. ':' .. redis.call('INCR', p .. 'flapseq'))
  redis.call('EXPIRE', p .. 'flap:' .. flap, 86400)
end
local i = 8
local n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do
  insert(p, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], now, ARGV[i + 4], retention); i = i + 5
end
n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do
  local receiver, group, payload, new_id = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local wait, interval = tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5]); i = i + 6
  local last = redis.call('GET', p .. 'group:' .. receiver .. ':' .. group)
  local h = last and redis.call('HMGET', p .. 'item:' .. last, 'state', 'claimed_until', 'created')
  if h and h[1] == 'pending' and tonumber(h[2]) <= tonumber(now) then
    redis.call('HSET', p .. 'item:' .. last, 'payload', payload)
  else
    local not_before = tonumber(now) + wait
    if h and h[3] then not_before = math.max(tonumber(now), tonumber(h[3]) + interval) end
    insert(p, new_id, receiver, group, payload, now, string.format('%.6f', not_before), retention)
  end
end
return 1
"""
)
_CLAIM = """
local p, receiver, now, until_ = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local head = redis.call('ZRANGEBYSCORE', p .. 'due:' .. receiver, '-inf', now, 'LIMIT', 0, 1)
if #head == 0 then return false end
local key = p .. 'item:' .. string.sub(head[1], 22)
local h = redis.call('HMGET', key, 'next_attempt', 'claimed_until')
if tonumber(h[1]) > tonumber(now) or tonumber(h[2]) > tonumber(now) then return false end
redis.call('HSET', key, 'claimed_until', until_)
return redis.call('HGETALL', key)
"""
_FINISH = """
local p, id, state, now, attempts, err = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local key = p .. 'item:' .. id
local h = redis.call('HMGET', key, 'receiver', 'member', 'seq', 'attempts')
if not h[1] then return 0 end
if attempts == '' then attempts = tonumber(h[4]) + 1 end
redis.call('HSET', key, 'state', state, 'finished', now, 'attempts', attempts, 'claimed_until', 0, 'last_error', err)
redis.call('ZREM', p .. 'due:' .. h[1], h[2])
redis.call('ZREM', p .. 'idx:pending', id)
if state == 'dead' then redis.call('ZADD', p .. 'idx:dead', h[3], id)
else redis.call('ZADD', p .. 'idx:delivered', now, id) end
return 1
"""
_REPLAY = """
local p, id, now = ARGV[1], ARGV[2], ARGV[3]
local key = p .. 'item:' .. id
local h = redis.call('HMGET', key, 'state', 'receiver', 'member', 'seq')
if h[1] ~= 'dead' then return 0 end
redis.call('HSET', key, 'state', 'pending', 'attempts', 0, 'not_before', now, 'next_attempt', now,
  'claimed_until', 0, 'last_error', '', 'finished', '')
redis.call('ZREM', p .. 'idx:dead', id)
redis.call('ZADD', p .. 'idx:pending', h[4], id)
redis.call('ZADD', p .. 'due:' .. h[2], now, h[3])
return 1
"""
_STORM = """
local p, cluster, app, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
redis.call('HSETNX', p .. 'storm:' .. cluster, 'started', now)
local alerts = redis.call('HINCRBY', p .. 'storm:' .. cluster, 'alerts', 1)
local new = redis.call('SADD', p .. 'storm-apps:' .. cluster, app)
local started = redis.call('HGET', p .. 'storm:' .. cluster, 'started')
return {started, alerts, redis.call('SMEMBERS', p .. 'storm-apps:' .. cluster), new}
"""


def _f(value: float) -> str:
    return f"{value:.6f}"


@translated(RedisError, "redis")
class RedisState:
    def __init__(self, client: aioredis.Redis, retention: float = 86400.0) -> None:
        # Any: redis-py types every reply as a wide union; the client decodes replies to str.
        self.r: Any = client
        self.p, self.retention = PREFIX, int(retention)
        self._record = client.register_script(_RECORD)
        self._claim = client.register_script(_CLAIM)
        self._finish = client.register_script(_FINISH)
        self._storm = client.register_script(_STORM)
        self._replay = client.register_script(_REPLAY)

    @classmethod
    async def open(cls, url: str) -> RedisState:
        try:
            client = aioredis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5, decode_responses=True)
            await client.ping()
        except (RedisError, ValueError) as exc:
            raise StateError(f"cannot reach redis state at {url.rsplit('@', maxsplit=1)[-1]}: {exc}") from exc
        return cls(client)

    async def close(self) -> None:
        await self.r.aclose()

    async def ping(self) -> None:
        await self.r.ping()

    async def seen(self, fingerprint: str, now: float) -> bool:
        until = await self.r.get(self.p + "dedupe:" + fingerprint)
        return until is not None and float(until) > now

    async def record(self, change: Ingest, now: float) -> bool:
        window = change.window
        args: list[Any] = [self.p, change.fingerprint, _f(now), _f(now + window), max(1, int(window * 1000))]
        args += [change.flap_identity, self.retention, len(change.items)]
        for item in change.items:
            args += [item.id, item.receiver, item.group_key, json.dumps(item.payload), _f(item.not_before)]
        args.append(len(change.groups))
        for g in change.groups:
            args += [g.receiver, g.group_key, json.dumps(g.payload), g.new_id, _f(g.wait), _f(g.interval)]
        return bool(await self._record(args=args))

    async def replayed(self, signature: str, now: float, ttl: float) -> bool:
        fresh = await self.r.set(self.p + "replay:" + signature, _f(now), nx=True, px=max(1, int(ttl * 1000)))
        return not fresh

    async def cluster_phase(self, cluster: str) -> str:
        phase = await self.r.hget(self.p + "clusters", cluster)
        return str(phase) if phase else ""

    async def set_cluster_phase(self, cluster: str, phase: str, now: float) -> None:
        await self.r.hset(self.p + "clusters", cluster, phase)

    async def storm_add(self, cluster: str, app: str, now: float) -> tuple[float, int, list[str], bool]:
        started, alerts, apps, new = await self._storm(args=[self.p, cluster, app, _f(now)])
        return float(started), int(alerts), sorted(apps), int(new) == 1

    async def storm_clear(self, cluster: str) -> None:
        await self.r.delete(self.p + "storm:" + cluster, self.p + "storm-apps:" + cluster)

    async def flap_count(self, identity: str, now: float, window: float) -> int:
        key = self.p + "flap:" + identity
        await self.r.zremrangebyscore(key, "-inf", _f(now - window))  # keeps each set to one window
        return int(await self.r.zcount(key, f"({_f(now - window)}", "+inf"))

    async def flap_begin(self, identity: str, now: float, until: float) -> bool:
        key = self.p + "flapping:" + identity
        old = await self.r.set(key, _f(until), get=True, px=max(1, int((until - now) * 1000)))
        return old is None or float(old) <= now

    async def add_silence(self, silence: Silence) -> None:
        await self.r.hset(self.p + "silences", silence.id, json.dumps(silence.to_store()))

    async def silences(self, now: float) -> list[Silence]:
        raw = await self.r.hvals(self.p + "silences")
        found = [Silence.from_store(json.loads(v)) for v in raw]
        return sorted((s for s in found if s.expires_at > now), key=lambda s: s.expires_at)

    async def delete_silence(self, silence_id: str) -> bool:
        return bool(await self.r.hdel(self.p + "silences", silence_id))

    async def claim(self, receiver: str, now: float, lease: float) -> OutboxItem | None:
        raw = await self._claim(args=[self.p, receiver, _f(now), _f(now + lease)])
        if not raw:
            return None
        return OutboxItem.from_fields(dict(zip(raw[::2], raw[1::2], strict=True)))

    async def delivered(self, item_id: str, now: float) -> None:
        await self._finish(args=[self.p, item_id, DELIVERED, _f(now), "", ""])

    async def retry(self, item_id: str, attempts: int, next_attempt_at: float, error: str) -> None:
        await self.r.hset(
            self.p + "item:" + item_id,
            mapping={
                "attempts": attempts,
                "next_attempt": _f(next_attempt_at),
                "last_error": error,
                "claimed_until": 0,
            },
        )

    async def dead(self, item_id: str, attempts: int, error: str, now: float) -> None:
        await self._finish(args=[self.p, item_id, DEAD, _f(now), attempts, error])

    async def replay(self, item_id: str, now: float) -> bool:
        return bool(await self._replay(args=[self.p, item_id, _f(now)]))

    async def outbox(self, state: str, limit: int) -> list[OutboxItem]:
        index = self.p + "idx:" + state
        ids = await (self.r.zrange(index, 0, limit - 1) if state == PENDING else self.r.zrevrange(index, 0, limit - 1))
        found = [await self.r.hgetall(self.p + "item:" + i) for i in ids]
        return [OutboxItem.from_fields(h) for h in found if h]

    async def outbox_counts(self) -> dict[str, int]:
        return {s: int(await self.r.zcard(self.p + "idx:" + s)) for s in (PENDING, DELIVERED, DEAD)}

    async def housekeeping(self, now: float, *, retention: float, flap_window: float) -> None:
        # flap hits are trimmed by flap_count, which runs before every new hit
        key = self.p + "silences"
        expired = [k for k, v in (await self.r.hgetall(key)).items() if json.loads(v)["expiresAtUnix"] <= now]
        if expired:
            await self.r.hdel(key, *expired)
        index = self.p + "idx:delivered"
        while old := await self.r.zrangebyscore(index, "-inf", _f(now - retention), start=0, num=500):
            await self.r.delete(*(self.p + "item:" + item_id for item_id in old))
            await self.r.zrem(index, *old)
