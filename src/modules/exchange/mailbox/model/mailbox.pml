/*
 * The partner mailbox (rules/contract §4), modelled for an exhaustive check with Spin.
 * README.md beside this file maps every step to the function and SQL statement implementing it.
 *
 * Bounds: 3 deliveries plus 1 slot for an operator's re-send, 2 workers (partner clients) with a
 * bounded number of steps each, an attempt budget of 2, one operator requeue per delivery. Time
 * is the environment: any running lease may run out and any backoff may end between any two steps,
 * and a worker may crash (drop what it was doing, keep its old handle) between any two steps.
 * Each SQL transaction is one atomic step (d_step): the row lock (SELECT … FOR UPDATE) serialises
 * them, and a crashed transaction rolls back, which is the same as not taking the step.
 *
 * Broken variant (-DBROKEN): the claim forgets the lease check (it does not refuse a delivery that
 * is claimed by a running lease), so two leases run on one delivery at once.
 */
#define N       4   /* delivery slots: 3 deliveries, the 4th made by a re-send */
#define NINIT   3
#define W       2   /* workers */
#define MAXATT  2   /* HANSE_MAILBOX_MAX_ATTEMPTS */
#define STEPS   4   /* operations per worker */

mtype = { NONE, READY, CLAIMED, ACKED, FAILED };

/* The row of exchange_deliveries. */
mtype status[N];
byte  attempts[N];
bool  due[N];          /* due_at <= now */
bool  leaseOver[N];    /* lease_expires_at <= now (time has run past the lease) */
byte  tokenOf[N];      /* claim_token_hash: the generation of the claim that set it; 0 = null */
byte  verified[N];     /* verified_attempt; 0 = null */
byte  receipt[N];      /* receipt_id; 0 = null */
bool  requeued[N];     /* the bound: one requeue per delivery */

/* Ghost state: what the invariants talk about (no code reads it). */
byte  gen[N];          /* claims ever made on the delivery: each claim token is a fresh value */
byte  liveLease[N];    /* the generation of the lease running now (0: none) */
byte  acks[N];         /* successful (non-replay) acknowledgements */
byte  readOk[N];       /* the attempt whose payload read was verified and recorded */
bool  resent = false;
byte  done = 0;
byte  ix = 0;          /* scratch index of expireLeases (always 0 between steps) */

inline expireLeases() {
  /* expireLeases → findExpiredLeases + state.expire + updateDelivery, one transaction */
  atomic {
    ix = 0;
    do
    :: ix < N ->
       if
       :: status[ix] == CLAIMED && leaseOver[ix] ->
          if
          :: attempts[ix] >= MAXATT -> status[ix] = FAILED
          :: else -> status[ix] = READY; due[ix] = false   /* due again after the backoff */
          fi;
          tokenOf[ix] = 0; verified[ix] = 0
       :: else -> skip
       fi;
       ix++
    :: else -> break
    od;
    ix = 0
  }
}

proctype Time() {
  byte e;
  end: do
  :: atomic { select(e : 0 .. N - 1);
       /* a running lease runs out */
       if :: status[e] == CLAIMED && !leaseOver[e] -> leaseOver[e] = true; liveLease[e] = 0
          :: else -> skip fi; e = 0 }
  :: atomic { select(e : 0 .. N - 1);
       /* a backoff ends */
       if :: status[e] == READY && !due[e] -> due[e] = true :: else -> skip fi; e = 0 }
  :: expireLeases()      /* the exchange.expire-leases job, at lease end */
  od
}

proctype Operator() {
  byte e;
  end: do
  :: atomic {  /* requeue: lockDelivery + state.requeue + updateDelivery */
       select(e : 0 .. N - 1);
       if
       :: status[e] == FAILED && !requeued[e] ->
          requeued[e] = true; status[e] = READY; attempts[e] = 0; due[e] = true;
          leaseOver[e] = false; tokenOf[e] = 0; verified[e] = 0
       :: else -> skip
       fi; e = 0 }
  :: atomic {  /* resend: findDelivery + reservePositions + insertDelivery; the original unchanged */
       select(e : 0 .. NINIT - 1);
       if
       :: !resent && status[e] != NONE ->
          resent = true; status[NINIT] = READY; attempts[NINIT] = 0; due[NINIT] = true
       :: else -> skip
       fi; e = 0 }
  od
}

proctype Worker(byte w) {
  byte steps = 0;
  byte pick = N;          /* a delivery the last list showed */
  byte he = N, hg = 0;    /* the worker's handle: delivery and claim token (generation) */
  byte ha = 0;            /* the attempt the claim returned */
  byte e;
  bool ok;

  do
  :: steps < STEPS ->
     steps++;
     if
     :: /* list: expireLeases, then listDue (status ready, due_at <= now), position order */
        expireLeases();
        atomic {
          select(e : 0 .. N - 1);
          if :: status[e] == READY && due[e] -> pick = e :: !(status[e] == READY && due[e]) -> skip fi;
          e = 0
        }
     :: pick < N ->
        /* claim: expireLeases, then lockDelivery + state.claim + updateDelivery */
        expireLeases();
        atomic {
          e = pick;
#ifdef BROKEN
          ok = (status[e] == READY || status[e] == CLAIMED) && attempts[e] < MAXATT &&
               (status[e] == CLAIMED || due[e]);
#else
          ok = status[e] == READY && due[e] && attempts[e] < MAXATT;
#endif
          if
          :: ok ->
             /* exclusivity: no lease is running on the delivery when a new one starts */
             assert(liveLease[e] == 0);
             gen[e]++; attempts[e]++;
             status[e] = CLAIMED; leaseOver[e] = false; tokenOf[e] = gen[e]; verified[e] = 0;
             liveLease[e] = gen[e];
             he = e; hg = gen[e]; ha = attempts[e]
          :: !ok -> skip   /* 409 */
          fi;
          e = 0; ok = false
        }
     :: he < N ->
        /* payload read: requireLease (findDelivery + holdsLease), stream, then the verdict */
        atomic {
          ok = status[he] == CLAIMED && !leaseOver[he] && tokenOf[he] == hg;
          assert(!ok || liveLease[he] == hg)
        }
        if
        :: ok ->
           if
           :: /* verified read: updateDelivery … WHERE status = 'claimed' AND attempts = attempt */
              atomic {
                e = 0;
                if
                :: status[he] == CLAIMED && attempts[he] == ha -> verified[he] = ha; readOk[he] = ha
                :: else -> skip
                fi;
                ok = false }
           :: /* failed read (storage error, short, hash mismatch): verified_attempt = null */
              atomic {
                e = 0;
                if
                :: status[he] == CLAIMED && attempts[he] == ha -> verified[he] = 0
                :: else -> skip
                fi;
                ok = false }
           :: ok = false   /* crash while streaming: no verdict recorded */
           fi
        :: !ok -> skip   /* 404 */
        fi
     :: he < N ->
        /* acknowledge (and its replay): lockDelivery + tokenMatches + state.acknowledge + updateDelivery */
        atomic {
          e = 0;
          if
          :: tokenOf[he] != hg -> skip                          /* stale or foreign handle: 404 */
          :: tokenOf[he] == hg && status[he] == ACKED ->
             assert(receipt[he] != 0)                           /* replay: the same receipt */
          :: tokenOf[he] == hg && status[he] != ACKED && (status[he] != CLAIMED || leaseOver[he]) ->
             skip                                               /* no running lease: 404 */
          :: tokenOf[he] == hg && status[he] == CLAIMED && !leaseOver[he] && verified[he] != attempts[he] ->
             skip                                               /* no verified read: 409 */
          :: tokenOf[he] == hg && status[he] == CLAIMED && !leaseOver[he] && verified[he] == attempts[he] ->
             /* a claim token is good for exactly one lease: the one running now */
             assert(liveLease[he] == hg);
             /* acknowledged only after a verified read under this very attempt */
             assert(readOk[he] == attempts[he]);
             acks[he]++;
             assert(acks[he] == 1);                             /* never acknowledged twice */
             status[he] = ACKED; receipt[he] = 1 + he; liveLease[he] = 0
          fi
        }
     :: skip  /* crash: forget the list, keep the old handle (it may be replayed later, stale) */
        pick = N
     fi
  :: steps >= STEPS -> break
  od;
  atomic { done++ }
}

/* No loss: once the workers have stopped and time has run on, every delivery is acknowledged, or
 * failed with its budget spent, or ready to be claimed again; none is stuck claimed or gone. */
proctype Final() {
  byte e;
  (done == W);
  atomic {
    e = 0;
    do :: e < N -> if :: status[e] == CLAIMED -> leaseOver[e] = true; liveLease[e] = 0 :: else -> skip fi; e++
       :: else -> break od
  }
  expireLeases();
  atomic {
    e = 0;
    do
    :: e < N ->
       assert(e >= NINIT || status[e] != NONE);
       assert(status[e] == NONE || status[e] == ACKED || status[e] == READY ||
              (status[e] == FAILED && attempts[e] >= MAXATT));
       assert(status[e] != READY || attempts[e] < MAXATT);
       assert(acks[e] <= 1);
       e++
    :: else -> break
    od
  }
}

init {
  byte e = 0;
  atomic {
    do
    :: e < N ->
       if :: e < NINIT -> status[e] = READY; due[e] = true :: else -> status[e] = NONE fi;
       e++
    :: else -> break
    od
  }
  atomic {
    run Time(); run Operator();
    run Worker(0); run Worker(1);
    run Final()
  }
}
