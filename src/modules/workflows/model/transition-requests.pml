/*
 * Transition requests (POST /workflows/transition-requests with X-Idempotency-Key), modelled for
 * an exhaustive check with Spin. README.md beside this file maps every step to the function and
 * SQL statement implementing it.
 *
 * Bounds: one idempotency key; 2 clients sending the same request under it concurrently, each
 * retrying up to 3 times; 2 API processes, each with its memory of recent answers; 2 job workers.
 * A client may lose any answer (a crash or a cut connection after the statement committed) and
 * retry; a worker may crash between any two transactions, after which its job lease runs out and
 * the other worker (or itself) runs the job again.
 *
 * Broken variant (-DBROKEN): the accept checks for the key and inserts in two steps instead of
 * one statement on the unique key, so two concurrent first requests both create a request.
 */
#define C      2   /* clients */
#define P      2   /* API processes */
#define TRIES  3   /* sends per client */

mtype = { NONE, PENDING, PROCESSING, SUCCEEDED, FAILED };
mtype = { FREE, QUEUED, LEASED, DONE };

/* Tables: the idempotency record (its answer: the request id), the request row, the job row. */
byte  record = 0;           /* idempotency_records: 0 = none, else the request id it answers */
byte  requests = 0;         /* rows in workflow_transition_requests under the key */
byte  jobs = 0;             /* queue events (jobs) inserted for them */
mtype reqStatus = NONE;
mtype jobState = FREE;
byte  entityVersion = 0;    /* the entity's version: each applied transition adds one */
byte  memo[P];              /* the process's memory of recent answers (0: none) */

/* Ghost state. */
byte  answered[C];          /* the request id each client was answered (0: none yet) */
byte  nextId = 0;
byte  applied = 0;          /* transitions applied */
byte  clientsDone = 0;
byte  workersDone = 0;

proctype Client(byte c) {
  byte tries = 0, p = 0, id = 0, seen = 0;
  bool claimed;
  do
  :: tries < TRIES ->
     tries++;
     atomic { select(p : 0 .. P - 1); nextId++; id = nextId }  /* requestId = deps.newId() */
     if
     :: memo[p] != 0 -> seen = memo[p]                          /* recentReplay */
     :: memo[p] == 0 ->
#ifdef BROKEN
        /* accept as look-up, then insert: a gap between the two */
        claimed = (record == 0);
        if
        :: claimed -> atomic { record = id; requests++; jobs++; reqStatus = PENDING; jobState = QUEUED }
        :: !claimed -> skip
        fi;
#else
        /* acceptRequests: ONE statement: the record on its unique key, the request, one job */
        atomic {
          claimed = (record == 0);
          if
          :: claimed -> record = id; requests++; jobs++; reqStatus = PENDING; jobState = QUEUED
          :: !claimed -> skip
          fi
        }
#endif
        if
        :: claimed -> seen = id; memo[p] = id                  /* remember */
        :: !claimed -> seen = record                            /* replayStored, a new statement */
        fi
     fi;
     atomic {
       /* exactly one request and one queue event, however the retries interleave */
       assert(requests <= 1 && jobs == requests);
       /* every answer names the one request */
       assert(seen == record);
       if
       :: answered[c] == 0 -> answered[c] = seen
       :: answered[c] != 0 -> assert(answered[c] == seen)
       fi
     }
     if
     :: break      /* the client got the answer */
     :: seen = 0   /* the answer was lost: retry */
     fi
  :: tries >= TRIES -> break
  od;
  atomic { clientsDone++ }
}

proctype Worker() {
  bool ok;
  end: do
  :: atomic {   /* the job queue: claim a queued job, or one whose lease ran out */
       (jobState == QUEUED) -> jobState = LEASED
     }
     /* start: lockRequest; pending → processing (markRequestProcessing) */
     atomic {
       ok = (reqStatus == PENDING || reqStatus == PROCESSING);
       if :: reqStatus == PENDING -> reqStatus = PROCESSING :: else -> skip fi
     }
     if
     :: !ok -> atomic { jobState = DONE }   /* terminal already: the job completes */
     :: ok ->
        if
        :: /* apply: lockRequest; if not terminal: updateEntityState + completeRequest, one transaction */
           atomic {
             if
             :: reqStatus == PENDING || reqStatus == PROCESSING ->
                entityVersion++; applied++; reqStatus = SUCCEEDED
             :: else -> skip
             fi
           }
           if
           :: atomic { jobState = DONE }     /* the job completes */
           :: atomic { jobState = QUEUED }   /* crash after apply: the lease runs out, due again */
           fi
        :: atomic { jobState = QUEUED }      /* crash before apply: the lease runs out, due again */
        fi
     fi
  :: atomic { (clientsDone == C && jobState != QUEUED && jobState != LEASED) -> break }
  od;
  atomic { workersDone++ }
}

/* At the end: the one request was processed exactly once. */
proctype Final() {
  (clientsDone == C && workersDone == 2);
  assert(requests == 1 && jobs == 1);
  assert(reqStatus == SUCCEEDED && jobState == DONE);
  assert(applied == 1 && entityVersion == 1)
}

init {
  atomic { run Client(0); run Client(1); run Worker(); run Worker(); run Final() }
}
