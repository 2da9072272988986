/*
 * Webhook delivery of entitlement changes (rules/contract §5, §7), modelled for an exhaustive check with
 * Spin. README.md beside this file maps every step to the function and SQL statement
 * implementing it.
 *
 * Bounds: one subscription with 2 deliveries (events); 2 runs of the delivery job at once; an
 * attempt schedule of 2; the receiver answers each POST with a 2xx, a 5xx, a 410 or nothing; a
 * lease may run out mid-send (another run then sends the same delivery again), and a run may crash
 * between any two steps; an operator may disable the subscription at any time.
 *
 * Broken variant (-DBROKEN): the lease statement forgets to read the subscription's state, so a
 * delivery starts after the subscription was disabled (by a 410 or an operator).
 */
#define D       2   /* deliveries */
#define MAXATT  2   /* attempts in the schedule */

mtype = { PENDING, DELIVERED, FAILED, CANCELLED };

/* webhook_deliveries and webhook_subscriptions. */
mtype state[D];
byte  attempts[D];
bool  leased[D];          /* lease_until > now */
bool  subEnabled = true;

/* Ghost state: what the receiver saw. */
bool  posted[D];          /* the receiver got a POST of the delivery (with its own event id) */
bool  got2xx[D];          /* the receiver answered some POST of the delivery with a 2xx */
bool  gone = false;       /* the receiver answered 410 */
byte  runsDone = 0;

#ifdef BROKEN
#define LEASABLE(x) (state[x] == PENDING && !leased[x])
#else
#define LEASABLE(x) (state[x] == PENDING && !leased[x] && subEnabled)
#endif
/* The lease of delivery x; the assertion: no delivery starts once the subscription is disabled. */
#define LEASE(x) LEASABLE(x) -> assert(subEnabled); d = x; leased[x] = true; att = attempts[x] + 1

inline sendAndRecord() {
     /* post: the same event id on every attempt; the receiver's answer */
     atomic {
       posted[d] = true;
       if
       :: answer = 1; got2xx[d] = true
       :: answer = 2
       :: answer = 3; gone = true
       :: answer = 4
       fi
     }
     if
     :: leased[d] = false; answer = 0   /* the lease ran out mid-send (or the run crashed) */
     :: skip
     fi;
     /* record: judgeBatch; recordOutcomes (only while pending at attempt − 1); on a 410
      * lockSubscriptionState, updateSubscription (enabled = false), cancelPendingDeliveries */
     atomic {
       if
       :: answer != 0 && state[d] == PENDING && attempts[d] == att - 1 ->
          if
          :: answer == 1 -> state[d] = DELIVERED
          :: answer == 3 -> state[d] = CANCELLED
          :: answer == 2 || answer == 4 ->
             if :: att >= MAXATT -> state[d] = FAILED :: else -> skip fi
          fi;
          assert(state[d] != DELIVERED || got2xx[d]);   /* delivered only on a 2xx */
          attempts[d] = att; leased[d] = false;
          if
          :: answer == 3 && subEnabled ->
             subEnabled = false;
             i = 0;
             do
             :: i < D -> if :: state[i] == PENDING -> state[i] = CANCELLED; leased[i] = false :: else -> skip fi; i++
             :: else -> break
             od
          :: else -> skip
          fi
       :: else -> leased[d] = false   /* not recorded: another run recorded this attempt first */
       fi;
       d = 0; att = 0; answer = 0; i = 0
     }
}

proctype Run() {
  byte d, att, i;
  mtype verdict;
  byte answer;            /* 1: 2xx, 2: 5xx, 3: 410, 4: no answer */
  end: do
  :: atomic {
       /* leaseDeliveries: UPDATE … SET lease_until WHERE state = 'pending' AND due AND not leased
        * AND EXISTS (the subscription, enabled and not deleted) … FOR UPDATE SKIP LOCKED */
       LEASE(0)
     }
     sendAndRecord()
  :: atomic { LEASE(1) }
     sendAndRecord()
  :: atomic { !subEnabled ->   /* run: a disabled subscription's pending deliveries are cancelled */
       i = 0;
       do
       :: i < D -> if :: state[i] == PENDING -> state[i] = CANCELLED :: else -> skip fi; i++
       :: else -> break
       od;
       i = 0 }
  :: atomic { (state[0] != PENDING && state[1] != PENDING) -> break }
  od;
  atomic { runsDone++ }
}

/* An operator (or the binding's revocation) disables the subscription, or not: its pending
 * deliveries stay pending until a run cancels them. */
proctype Operator() {
  if
  :: subEnabled = false   /* updateSubscription (enabled = false) by PATCH */
  :: skip
  fi
}

/* At least once: in the end every delivery reached the receiver with a 2xx, or failed its whole
 * schedule, or was cancelled by the disabling after a 410. */
proctype Final() {
  byte d = 0;
  (runsDone == 2);
  do
  :: d < D ->
     assert(state[d] != PENDING);
     assert(state[d] != DELIVERED || (got2xx[d] && posted[d]));
     assert(state[d] != FAILED || attempts[d] == MAXATT);
     assert(state[d] != CANCELLED || !subEnabled);
     assert(attempts[d] <= MAXATT);
     d++
  :: else -> break
  od
}

init {
  atomic { state[0] = PENDING; state[1] = PENDING; run Run(); run Run(); run Operator(); run Final() }
}
