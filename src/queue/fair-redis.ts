/**
 * The Redis side of the fair queue (src/queue/redis-queue.ts): each repository's jobs wait in a list of
 * their own; BullMQ holds *turns*, one for each repository ready to run, not bound to any job. The
 * worker that takes a turn asks `START` which job it runs: the one whose turn it is now, by
 * src/queue/fair-turns.ts's rules, here as Lua, so every change is one atomic step in Redis and a
 * replica killed between two of them leaves nothing half-done: a job is in its repository's list or
 * bound to a turn BullMQ holds.
 *
 * Keys under `<prefix>:<queue>:fair:`: `seq` (the clock of the turns, and the turns' ids), `served`
 * (when each installation `i:…` and repository `r:…` was last served), `job:<id>` (a job's repo, key,
 * installation, origin, payload and `at`, when it was queued), `jobs` (every job's id until it is
 * done), `dedup` (`repo|key` → the id of the job waiting with that key, until it starts),
 * `list:<repo>` (the repository's jobs not started, in arrival order), `events` (per repository, event
 * jobs in its list), `busy` (per repository, its job running), `active:<class>` (installations with a
 * ready repository, by their stamp), `ready:<class>:<installation>` (its ready repositories, by their
 * stamp), `turns` (turns issued and not started, and their class) and `bound` (a started turn → its job).
 *
 * There are never fewer turns waiting than ready repositories: a repository that becomes ready issues
 * one, and a turn that starts takes at most one; one that finds none ready ends at once. Every script
 * takes ARGV[1] = the key base and answers, last, the turns it issued as pairs `id, class`, for the
 * caller to add to BullMQ with the id as BullMQ's job id (so that adding one twice adds it once).
 */
const LIB = `
local base = ARGV[1]
local NEVER = 1125899906842624
local issued = {}
local function k(a, b, c)
  local key = base .. ':' .. a
  if b then key = key .. ':' .. b end
  if c then key = key .. ':' .. c end
  return key
end
local function answer(head)
  for _, v in ipairs(issued) do head[#head + 1] = v end
  return head
end
local function turn(cls)
  local id = 't' .. redis.call('INCR', k('seq'))
  redis.call('HSET', k('turns'), id, cls)
  issued[#issued + 1] = id
  issued[#issued + 1] = cls
end
local function stamp(who)
  local at = redis.call('HGET', k('served'), who)
  if at then return at end
  at = redis.call('INCR', k('seq')) - NEVER
  redis.call('HSET', k('served'), who, at)
  return at
end
local function lineOf(cls, inst)
  if not redis.call('ZSCORE', k('active', cls), inst) then
    redis.call('ZADD', k('active', cls), stamp('i:' .. inst), inst)
  end
end
local function ready(repo, inst)
  local cls = 'sweep'
  if tonumber(redis.call('HGET', k('events'), repo) or '0') > 0 then cls = 'event' end
  lineOf(cls, inst)
  redis.call('ZADD', k('ready', cls, inst), stamp('r:' .. repo), repo)
  turn(cls)
end
local function raise(repo, inst)
  local at = redis.call('ZSCORE', k('ready', 'sweep', inst), repo)
  if not at then return end
  redis.call('ZREM', k('ready', 'sweep', inst), repo)
  if redis.call('EXISTS', k('ready', 'sweep', inst)) == 0 then redis.call('ZREM', k('active', 'sweep'), inst) end
  lineOf('event', inst)
  redis.call('ZADD', k('ready', 'event', inst), at, repo)
  turn('event')
end
local function take()
  for _, cls in ipairs({'event', 'sweep'}) do
    local inst = redis.call('ZRANGE', k('active', cls), 0, 0)[1]
    if inst then
      local line = k('ready', cls, inst)
      local repo = redis.call('ZRANGE', line, 0, 0)[1]
      if repo then redis.call('ZREM', line, repo) end
      if redis.call('EXISTS', line) == 0 then redis.call('ZREM', k('active', cls), inst) end
      if repo then
        local at = redis.call('INCR', k('seq'))
        redis.call('HSET', k('served'), 'i:' .. inst, at, 'r:' .. repo, redis.call('INCR', k('seq')))
        redis.call('ZADD', k('active', 'event'), 'XX', at, inst)
        redis.call('ZADD', k('active', 'sweep'), 'XX', at, inst)
        return repo
      end
    end
  end
  return false
end
local function dropDedup(repo, key, id)
  local dk = repo .. '|' .. key
  if redis.call('HGET', k('dedup'), dk) == id then redis.call('HDEL', k('dedup'), dk) end
end
`;

/**
 * Queues a job (ARGV[2..8]: repo, key, installation, origin, payload JSON, new id, queued-at ms), or
 * lets the job waiting with that repository and key absorb it: the newest payload is the one that
 * runs, and an event's request lifts a sweep's job to the events' class. Answers `queued|absorbed`,
 * then the turns issued.
 */
export const ENQUEUE = `${LIB}
local repo, key, inst, origin, payload, id, at = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local dk = repo .. '|' .. key
local busy = redis.call('HGET', k('busy'), repo)
local old = redis.call('HGET', k('dedup'), dk)
if old then
  redis.call('HSET', k('job', old), 'payload', payload)
  if origin == 'event' and redis.call('HGET', k('job', old), 'origin') == 'sweep' then
    redis.call('HSET', k('job', old), 'origin', 'event')
    redis.call('HINCRBY', k('events'), repo, 1)
    if not busy then raise(repo, inst) end
  end
  return answer({'absorbed'})
end
redis.call('HSET', k('job', id), 'repo', repo, 'key', key, 'inst', inst, 'origin', origin, 'payload', payload, 'at', at)
redis.call('SADD', k('jobs'), id)
redis.call('HSET', k('dedup'), dk, id)
local n = redis.call('RPUSH', k('list', repo), id)
if origin == 'event' then redis.call('HINCRBY', k('events'), repo, 1) end
if not busy then
  if n == 1 then ready(repo, inst) elseif origin == 'event' then raise(repo, inst) end
end
return answer({'queued'})
`;

/**
 * A turn starts (ARGV[2]: its id): it takes the job whose turn it is (or, if a replica since taken for
 * dead started it before, the job it took then). Answers 0 if there is none, else 1, the job's id,
 * repo, key, origin, payload and queued-at; then the turns issued.
 */
export const START = `${LIB}
local t = ARGV[2]
local id = redis.call('HGET', k('bound'), t)
if not id then
  if redis.call('HDEL', k('turns'), t) == 0 then return {0} end
  local repo = take()
  id = repo and redis.call('LPOP', k('list', repo))
  if not id then return {0} end
  if redis.call('HGET', k('job', id), 'origin') == 'event' then
    if redis.call('HINCRBY', k('events'), repo, -1) <= 0 then redis.call('HDEL', k('events'), repo) end
  end
  redis.call('HSET', k('busy'), repo, id)
  redis.call('HSET', k('bound'), t, id)
  dropDedup(repo, redis.call('HGET', k('job', id), 'key'), id)
end
local f = redis.call('HMGET', k('job', id), 'repo', 'key', 'origin', 'payload', 'at')
if not f[1] then
  redis.call('HDEL', k('bound'), t)
  return {0}
end
return answer({1, id, f[1], f[2], f[3], f[4], f[5]})
`;

/** A turn's job is done (ARGV[2]: the turn's id): its repository's next job gets in line. Answers the turns issued. */
export const DONE = `${LIB}
local t = ARGV[2]
local id = redis.call('HGET', k('bound'), t)
redis.call('HDEL', k('bound'), t)
redis.call('HDEL', k('turns'), t)
if not id then return answer({}) end
local f = redis.call('HMGET', k('job', id), 'repo', 'key', 'inst')
if f[1] then
  local repo = f[1]
  redis.call('DEL', k('job', id))
  redis.call('SREM', k('jobs'), id)
  dropDedup(repo, f[2], id)
  if redis.call('HGET', k('busy'), repo) == id then
    redis.call('HDEL', k('busy'), repo)
    if redis.call('LLEN', k('list', repo)) > 0 then ready(repo, f[3]) end
  end
end
return answer({})
`;

/** A turn issued, to add to BullMQ: its id and class. */
export interface Turn {
  id: string;
  cls: "event" | "sweep";
}

/** The turns at the end of a script's answer, from `from` on. */
/**
 * A fair-queue script's reply, which every script gives as a list (ioredis types `eval`'s reply
 * `unknown`); anything else, a Redis that ran something else, is an error naming the script.
 */
export function scriptReply(reply: unknown, script: string): unknown[] {
  if (!Array.isArray(reply))
    throw new Error(`the fair queue's ${script} script answered ${JSON.stringify(reply)}, not a list`);
  return reply;
}

export function turnsOf(answer: unknown[], from: number): Turn[] {
  const out: Turn[] = [];
  for (let i = from; i + 1 < answer.length; i += 2)
    out.push({ id: String(answer[i]), cls: answer[i + 1] === "sweep" ? "sweep" : "event" });
  return out;
}
