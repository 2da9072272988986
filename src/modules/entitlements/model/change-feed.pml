/*
 * The entitlement change feed of an app's stream and the mirror client's gap check, modelled for
 * an exhaustive check with Spin. README.md beside this file maps every step to the function and
 * SQL statement implementing it.
 *
 * Bounds: 2 writers (API processes) with 2 changes each, any of which may roll back (a crash or an
 * error inside the transaction); 1 mirror reading the feed; 1 pruning of the changes committed so
 * far. Each statement is one atomic step; a writer's transaction spans several.
 *
 * Broken variant (-DBROKEN): the writer takes its sequence outside its transaction (a counter that
 * neither waits for the other writer nor rolls back), so sequences commit out of order or not at
 * all, and the mirror sees a gap.
 */
#define WR     2   /* writers */
#define PER    2   /* changes per writer */
#define MAXS   4   /* sequences there can be: WR × PER */

/* entitlement_streams: last_sequence (as written, as committed) and pruned_through. */
byte counter = 0;          /* last_sequence in the writer's view (uncommitted increments) */
byte committedCounter = 0; /* last_sequence as committed */
byte prunedThrough = 0;
byte lockHolder = 0;       /* the row lock the UPDATE of last_sequence takes: writer + 1, 0 = free */
bool committed[MAXS + 1];  /* entitlement_changes rows committed, by sequence */
bool pruned[MAXS + 1];     /* rows deleted by the pruning */

/* The mirror: the last sequence it applied; ghost: the sequences it applied. */
byte after = 0;
bool applied[MAXS + 1];
byte writersDone = 0;

proctype Writer(byte w) {
  byte n = 0, seq = 0;
  do
  :: n < PER ->
     n++;
#ifdef BROKEN
     atomic { counter++; committedCounter = counter; seq = counter }   /* outside the transaction */
#else
     /* nextSequence: UPDATE entitlement_streams SET last_sequence = last_sequence + 1 RETURNING …
      * (waits for the row lock another open transaction holds) */
     atomic { lockHolder == 0 -> lockHolder = w + 1; counter++; seq = counter }
#endif
     /* the change row inserted, then COMMIT — or ROLLBACK */
     if
     :: atomic {
          committed[seq] = true;
#ifndef BROKEN
          committedCounter = counter; lockHolder = 0;
#endif
          seq = 0 }
     :: atomic {
#ifndef BROKEN
          counter = committedCounter; lockHolder = 0;
#endif
          seq = 0 }
     fi
  :: n >= PER -> break
  od;
  atomic { writersDone++ }
}

/* pruneChanges: delete the committed changes (all, in this bound) and raise pruned_through. */
proctype Pruner() {
  atomic {
    byte s = 1;
    do
    :: s <= MAXS ->
       if :: committed[s] && !pruned[s] -> pruned[s] = true; prunedThrough = s :: else -> skip fi;
       s++
    :: else -> break
    od
  }
}

/* The mirror: reads the feed after `after`; a 410 makes it snapshot at asOfSequence, then read on. */
proctype Mirror() {
  byte s;
  end: do
  :: atomic {
       if
       :: prunedThrough > after ->
          /* 410: the changes after `after` are pruned. The snapshot: the state as of
           * asOfSequence = last_sequence committed, every change up to it included. */
          s = 1;
          do
          :: s <= committedCounter -> applied[s] = true; s++
          :: else -> break
          od;
          after = committedCounter
       :: else ->
          /* one page: SELECT … WHERE sequence > after ORDER BY sequence, as committed now */
          s = after + 1;
          do
          :: s <= MAXS && committed[s] && !pruned[s] ->
             assert(!applied[s]);              /* no repeat */
             applied[s] = true; after = s; s++
          :: s <= MAXS && !(committed[s] && !pruned[s]) ->
             /* the gap check: nothing committed may follow a sequence not (yet) committed */
             byte t = s + 1;
             do
             :: t <= MAXS -> assert(!committed[t] || pruned[t]); t++
             :: else -> break
             od;
             break
          :: s > MAXS -> break
          od
       fi;
       s = 0
     }
  :: atomic { writersDone == WR && after == committedCounter -> break }
  od;
  /* In the end: the mirror has every committed change, in order, and nothing else. */
  atomic {
    s = 1;
    do
    :: s <= MAXS -> assert(applied[s] == (s <= committedCounter)); assert(!applied[s] || committed[s]); s++
    :: else -> break
    od
  }
}

init {
  atomic { run Writer(0); run Writer(1); run Pruner(); run Mirror() }
}
