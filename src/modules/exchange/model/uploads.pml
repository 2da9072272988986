/*
 * Upload idempotency (X-Idempotency-Key on a partner upload) and the duplicate-interchange check
 * of processing (rules/contract §8), modelled for an exhaustive check with Spin. README.md beside this
 * file maps every step to the function and SQL statement implementing it.
 *
 * Bounds: one connection; 3 sends: two of the same upload under key 1 (a retry racing the first
 * send) and one under key 2 carrying the same interchange (a duplicate); 2 processing workers that
 * may crash between any two transactions (the job's lease then runs out and it runs again).
 *
 * Broken variant (-DBROKEN): processing looks for a processed upload of the same interchange
 * before its record transaction, not under the connection's lock inside it, so two uploads of one
 * interchange are both processed.
 */
#define K 2   /* idempotency keys (uploads) */

mtype = { NONE, RECEIVED, PROCESSING, PROCESSED, REJECTED };

mtype status[K + 1];      /* exchange_uploads by key (1, 2): one row per key or none */
byte  jobs[K + 1];        /* processing jobs inserted per upload */
bool  queued[K + 1];      /* the job is due (queued, or its lease ran out) */
byte  deliveries[K + 1];  /* mailbox entries inserted per upload (one per processed upload here) */
bool  dupOf[K + 1];       /* duplicate_of set: found by an earlier run of the job */

/* Ghost state. */
byte  answered[4];        /* per send: the upload key it was answered with */
byte  sendsDone = 0;
byte  workersDone = 0;

proctype Send(byte s; byte key) {
  /* acceptUpload: ONE statement: a replay from the existing row, else the row, blob, audit, job */
  atomic {
    if
    :: status[key] == NONE -> status[key] = RECEIVED; jobs[key]++; queued[key] = true
    :: else -> skip   /* replay: answered from the existing upload */
    fi;
    assert(jobs[key] == 1);
    answered[s] = key;
    sendsDone++
  }
}

inline runJob() {
     /* start: RECEIVED → PROCESSING (a re-run finds it processing) */
     atomic { if :: status[u] == RECEIVED -> status[u] = PROCESSING :: else -> skip fi }
     /* the analysis runs outside any transaction */
#ifdef BROKEN
     atomic { found = (status[3 - u] == PROCESSED) }   /* the check, outside the lock */
#endif
     if
     :: /* record: lockUpload; reservePositions (the connection's lock); findProcessedDuplicate;
         * insertDelivery …; the upload's final status — one transaction */
        atomic {   /* atomic: the connection row's lock (reservePositions / lockConnection) */
          if
          :: status[u] == PROCESSING ->
#ifndef BROKEN
             found = (status[3 - u] == PROCESSED);   /* under the connection's lock */
#endif
             if
             :: found || dupOf[u] -> status[u] = REJECTED; dupOf[u] = true   /* CONTRL 26, no entries */
             :: else -> status[u] = PROCESSED; deliveries[u]++
             fi
          :: else -> skip   /* already terminal: a re-run changes nothing */
          fi;
          found = false
        }
        if
        :: skip                   /* the job completes */
        :: queued[u] = true       /* crash after the commit: the job runs again, finds it terminal */
        fi
     :: atomic { queued[u] = true; found = false }   /* crash: the lease runs out, due again */
     fi;
     u = 0
}

proctype Worker() {
  byte u;
  bool found;
  end: do
  :: atomic { queued[1] -> queued[1] = false; u = 1 }   /* the queue: claim a job */
     runJob()
  :: atomic { queued[2] -> queued[2] = false; u = 2 }
     runJob()
  :: atomic { sendsDone == 3 && !queued[1] && !queued[2] && status[1] != RECEIVED && status[1] != PROCESSING &&
              status[2] != RECEIVED && status[2] != PROCESSING -> break }
  od;
  atomic { workersDone++ }
}

proctype Final() {
  (workersDone == 2);
  /* one upload and one job per key, every send answered with its key's upload */
  assert(jobs[1] == 1 && jobs[2] == 1);
  assert(answered[0] == 1 && answered[1] == 1 && answered[2] == 2);
  /* exactly one upload of the interchange processed, the other rejected as its duplicate */
  assert((status[1] == PROCESSED) != (status[2] == PROCESSED));
  assert(status[1] == PROCESSED || status[1] == REJECTED);
  assert(status[2] == PROCESSED || status[2] == REJECTED);
  /* a processed upload's entries were inserted once, a rejected one has none */
  assert(deliveries[1] == (status[1] == PROCESSED -> 1 : 0));
  assert(deliveries[2] == (status[2] == PROCESSED -> 1 : 0))
}

init {
  atomic { status[0] = NONE; status[1] = NONE; status[2] = NONE; run Send(0, 1); run Send(1, 1); run Send(2, 2); run Worker(); run Worker(); run Final() }
}
