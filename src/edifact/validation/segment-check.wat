;; The fast path of a message's validation in WebAssembly (segment-check.ts drives it;
;; scripts/build-wasm.ts turns this file into segment-check.wasm.ts): per segment, the tag
;; from the bytes, the quick check of segment.precheck.ts and the table-driven step of the
;; structure walker (structure.validator.ts), for as long as all three are the usual case. It
;; stops at the first segment that is not — a tag it cannot read, a value shape it does not
;; check (repetitions, released values other than plain `an`, codes longer than three ASCII
;; bytes), a value the quick check doubts, a structure step that is not a plain table
;; step or that counts one repetition too many — without having touched it: TypeScript then
;; takes that segment the way it takes every segment without this module, and calls again.
;; So everything done here must equal what TypeScript would do, and a stop means nothing.
;;
;; Inputs, laid out by the driver (addresses and adjustments are passed to `walk`):
;;   bytes of the segments' range (absolute offset x at x + badj)
;;   token starts and infos (absolute token k at ts + 4k and ti + 4k, ts and ti adjusted)
;;   segment token starts (nseg + 1 entries, absolute token indexes) and segment ends
;;   (nseg entries, the terminator's absolute offset)
;;   the walker's state at io (i32) and its occurrence count per level at io + 8 + 8 l (f64)
;;
;; A message image (built by segment-check.ts from a message structure and a directory) and a
;; segment record (a CompiledSegment of segment.program.ts) are int32 fields in the order of
;; MESSAGE_IMAGE_FIELDS and SEGMENT_RECORD_FIELDS of src/edifact/wasm-layout.ts; `image.x` and
;; `record.x` are their byte offsets. Every name in double braces is a number of that table, which
;; the driver and the TypeScript quick check read too; scripts/wasm-modules.ts puts the values in
;; before assembling.
(module
  (import "env" "memory" (memory 1))

  ;; True when the record's code table holds `key`.
  (func $hasCode (param $rec i32) (param $key i32) (result i32)
    (local $i i32) (local $mask i32) (local $keys i32) (local $k i32)
    (local.set $mask (i32.load offset={{record.codeMask}} (local.get $rec)))
    (local.set $keys (i32.load offset={{record.codeKeys}} (local.get $rec)))
    (local.set $i
      (i32.shr_u (i32.mul (local.get $key) (i32.const {{hash.multiplier}})) (i32.load offset={{record.codeShift}} (local.get $rec))))
    (loop $probe
      (local.set $k (i32.load (i32.add (local.get $keys) (i32.shl (local.get $i) (i32.const 2)))))
      (if (i32.eq (local.get $k) (local.get $key)) (then (return (i32.const 1))))
      (if (i32.eqz (local.get $k)) (then (return (i32.const 0))))
      (local.set $i (i32.and (i32.add (local.get $i) (i32.const 1)) (local.get $mask)))
      (br $probe))
    (i32.const 0))

  ;; The digits of a number at [s, e) (an optional leading minus, at most one decimal mark after
  ;; a digit), or -1 when it is not such a number.
  (func $digits (param $s i32) (param $e i32) (param $dec0 i32) (param $dec1 i32) (result i32)
    (local $i i32) (local $b i32) (local $digits i32) (local $marks i32)
    (local.set $i (local.get $s))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $e)))
        (local.set $b (i32.load8_u (local.get $i)))
        (if (i32.lt_u (i32.sub (local.get $b) (i32.const 0x30)) (i32.const 10))
          (then (local.set $digits (i32.add (local.get $digits) (i32.const 1))))
          (else
            (if (i32.eqz (i32.and (i32.eq (local.get $b) (i32.const 0x2d))
                                  (i32.eq (local.get $i) (local.get $s))))
              (then
                (if (i32.and
                      (i32.or (i32.eq (local.get $b) (local.get $dec0))
                              (i32.eq (local.get $b) (local.get $dec1)))
                      (i32.ne (local.get $digits) (i32.const 0)))
                  (then (local.set $marks (i32.add (local.get $marks) (i32.const 1))))
                  (else (return (i32.const -1))))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (if (result i32) (i32.gt_u (local.get $marks) (i32.const 1))
      (then (i32.const -1))
      (else (local.get $digits))))

;; 1 when the unreleased value at [s, e) of a KIND_OTHER position is valid, as `valueIsValid`
  ;; of segment.precheck.ts decides through the position's value slot [representation, min, max,
  ;; code set]; 0 when it is not, or when only the code set's text lookup could tell.
  (func $other
    (param $rec i32) (param $position i32) (param $s i32) (param $e i32) (param $codes i32)
    (param $dec0 i32) (param $dec1 i32) (result i32)
    (local $slot i32) (local $repr i32) (local $length i32) (local $i i32) (local $b i32)
    (local $key i32) (local $ascii i32)
    (local.set $slot
      (i32.add (i32.load offset={{record.values}} (local.get $rec))
               (i32.shl (i32.and (local.get $position) (i32.const {{position.numberMask}}))
                        (i32.const {{valueSlot.shift}}))))
    (local.set $repr (i32.load offset={{valueSlot.representation}} (local.get $slot)))
    (if (i32.eq (local.get $repr) (i32.const {{representation.n}}))
      (then
        (local.set $length (call $digits (local.get $s) (local.get $e) (local.get $dec0) (local.get $dec1)))
        (if (i32.lt_s (local.get $length) (i32.const 0)) (then (return (i32.const 0)))))
      (else
        (if (i32.eq (local.get $repr) (i32.const {{representation.a}}))
          (then
            ;; Alphabetic: no digit.
            (local.set $i (local.get $s))
            (block $done
              (loop $next
                (br_if $done (i32.ge_u (local.get $i) (local.get $e)))
                (if (i32.lt_u (i32.sub (i32.load8_u (local.get $i)) (i32.const 0x30)) (i32.const 10))
                  (then (return (i32.const 0))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $next)))))
        (local.set $length (i32.sub (local.get $e) (local.get $s)))))
    (if (i32.gt_s (local.get $length) (i32.load offset={{valueSlot.max}} (local.get $slot))) (then (return (i32.const 0))))
    (if (i32.lt_s (local.get $length) (i32.load offset={{valueSlot.min}} (local.get $slot))) (then (return (i32.const 0))))
    (if (i32.or (i32.lt_s (i32.load offset={{valueSlot.codeSet}} (local.get $slot)) (i32.const 0)) (i32.eqz (local.get $codes)))
      (then (return (i32.const 1))))
    ;; A short ASCII code, packed as code-set.ts packs it.
    (if (i32.gt_s (i32.sub (local.get $e) (local.get $s)) (i32.const 3)) (then (return (i32.const 0))))
    (local.set $key (i32.const 1))
    (local.set $i (local.get $s))
    (block $packed
      (loop $byte
        (br_if $packed (i32.ge_u (local.get $i) (local.get $e)))
        (local.set $b (i32.load8_u (local.get $i)))
        (local.set $ascii (i32.or (local.get $ascii) (local.get $b)))
        (local.set $key (i32.or (i32.shl (local.get $key) (i32.const 8)) (local.get $b)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $byte)))
    (if (i32.ge_u (local.get $ascii) (i32.const 0x80)) (then (return (i32.const 0))))
    (call $hasCode (local.get $rec)
      (i32.or (i32.shl (i32.and (local.get $position) (i32.const {{position.numberMask}}))
                       (i32.const {{position.codeShift}}))
              (local.get $key))))

  ;; Characters of a released plain value at [s, e), as `characters` of segment.precheck.ts.
  (func $characters (param $s i32) (param $e i32) (param $rel i32) (result i32)
    (local $i i32) (local $length i32)
    (local.set $i (local.get $s))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $e)))
        (if (i32.eq (i32.load8_u (local.get $i)) (local.get $rel))
          (then
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br_if $done (i32.ge_u (local.get $i) (local.get $e)))))
        (local.set $length (i32.add (local.get $length) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $length))

  ;; Walks segments [from, nseg) of the laid-out range; answers the first one it did not take
  ;; (nseg when it took them all), with the walker's state written back at io.
  (func (export "walk")
    (param $msg i32) (param $from i32) (param $nseg i32) (param $st i32) (param $se i32)
    (param $ts i32) (param $ti i32) (param $badj i32) (param $io i32) (param $codes i32)
    (param $dec0 i32) (param $dec1 i32) (param $rel i32)
    (result i32)
    (local $seg i32) (local $k i32) (local $end i32) (local $segEnd i32) (local $s i32)
    (local $a i32) (local $b i32) (local $c i32) (local $tag i32) (local $i i32) (local $key i32)
    (local $state i32) (local $code i32) (local $target i32) (local $level i32) (local $l i32)
    (local $top i32) (local $count f64) (local $node i32) (local $depth i32) (local $keys i32)
    (local $mask i32) (local $shift i32) (local $trans i32) (local $tags i32) (local $levels i32)
    (local $counts i32) (local $rec i32) (local $vs i32) (local $ve i32) (local $va i32)
    (local $vb i32) (local $vi i32) (local $vkey i32) (local $size i32) (local $positions i32)
    (local $inf i32) (local $index i32) (local $position i32) (local $kind i32) (local $length i32)
    (local $present i32) (local $cond i32) (local $condEnd i32) (local $used i32)
    (local $mandatory i32)
    (local.set $keys (i32.load offset={{image.tagKeys}} (local.get $msg)))
    (local.set $mask (i32.load offset={{image.tagMask}} (local.get $msg)))
    (local.set $shift (i32.load offset={{image.tagShift}} (local.get $msg)))
    (local.set $trans (i32.load offset={{image.transitions}} (local.get $msg)))
    (local.set $tags (i32.load offset={{image.tags}} (local.get $msg)))
    (local.set $levels (i32.load offset={{image.levels}} (local.get $msg)))
    (local.set $depth (i32.load offset={{image.depth}} (local.get $msg)))
    (local.set $counts (i32.add (local.get $io) (i32.const {{check.ioCounts}})))
    (local.set $state (i32.load (local.get $io)))
    (local.set $seg (local.get $from))
    (block $stop
      (loop $next
        (br_if $stop (i32.ge_s (local.get $seg) (local.get $nseg)))
        (local.set $k (i32.load (i32.add (local.get $st) (i32.shl (local.get $seg) (i32.const 2)))))
        (local.set $end (i32.load offset=4 (i32.add (local.get $st) (i32.shl (local.get $seg) (i32.const 2)))))
        (local.set $segEnd (i32.load (i32.add (local.get $se) (i32.shl (local.get $seg) (i32.const 2)))))
        ;; The tag: three unreleased ASCII bytes, packed as tag-id.ts packs them.
        (br_if $stop (i32.and (i32.load (i32.add (local.get $ti) (i32.shl (local.get $k) (i32.const 2))))
                              (i32.const {{tokenInfo.released}})))
        (local.set $s (i32.load (i32.add (local.get $ts) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br_if $stop
          (i32.ne
            (i32.sub
              (if (result i32) (i32.lt_s (local.get $k) (local.get $end))
                (then (i32.sub (i32.load (i32.add (local.get $ts) (i32.shl (local.get $k) (i32.const 2))))
                               (i32.const 1)))
                (else (local.get $segEnd)))
              (local.get $s))
            (i32.const 3)))
        (local.set $s (i32.add (local.get $s) (local.get $badj)))
        (local.set $a (i32.load8_u (local.get $s)))
        (local.set $b (i32.load8_u offset=1 (local.get $s)))
        (local.set $c (i32.load8_u offset=2 (local.get $s)))
        (br_if $stop (i32.ge_u (i32.or (i32.or (local.get $a) (local.get $b)) (local.get $c)) (i32.const 0x80)))
        (local.set $tag
          (i32.or (i32.or (i32.const {{tag.packed}}) (i32.shl (local.get $a) (i32.const 16)))
                  (i32.or (i32.shl (local.get $b) (i32.const 8)) (local.get $c))))
        ;; The tag's slot in the message's tag table: its dense number and its segment record.
        (local.set $i (i32.shr_u (i32.mul (local.get $tag) (i32.const {{hash.multiplier}})) (local.get $shift)))
        (block $found
          (loop $probe
            (local.set $key (i32.load (i32.add (local.get $keys) (i32.shl (local.get $i) (i32.const 2)))))
            (br_if $found (i32.eq (local.get $key) (local.get $tag)))
            (br_if $stop (i32.eqz (local.get $key)))
            (local.set $i (i32.and (i32.add (local.get $i) (i32.const 1)) (local.get $mask)))
            (br $probe)))
        ;; UNH and UNT are the envelope's to check; every other segment its elements.
        (if (i32.and (i32.ne (local.get $tag) (i32.const {{tag.UNH}})) (i32.ne (local.get $tag) (i32.const {{tag.UNT}})))
          (then
            (local.set $a (i32.load (i32.add (i32.load offset={{image.records}} (local.get $msg)) (i32.shl (local.get $i) (i32.const 2)))))
            (br_if $stop (i32.eqz (local.get $a)))
            (local.set $rec (local.get $a))
            (local.set $present (i32.const 0))
            ;; The quick check of the data tokens [k, end) against the record (segment.precheck.ts);
            ;; every failure stops the walk at this segment.
            (local.set $size (i32.load offset={{record.size}} (local.get $rec)))
            (local.set $positions (i32.load offset={{record.positions}} (local.get $rec)))
            (block $tokens
              (loop $token
                (br_if $tokens (i32.ge_s (local.get $k) (local.get $end)))
                (local.set $inf (i32.load (i32.add (local.get $ti) (i32.shl (local.get $k) (i32.const 2)))))
                (local.set $vs
                  (i32.add (i32.load (i32.add (local.get $ts) (i32.shl (local.get $k) (i32.const 2))))
                           (local.get $badj)))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (local.set $ve
                  (i32.add
                    (if (result i32) (i32.lt_s (local.get $k) (local.get $end))
                      (then (i32.sub (i32.load (i32.add (local.get $ts) (i32.shl (local.get $k) (i32.const 2))))
                                     (i32.const 1)))
                      (else (local.get $segEnd)))
                    (local.get $badj)))
                ;; Repetitions and components beyond 31 are left to TypeScript.
                (if (i32.and (local.get $inf) (i32.const {{position.unusualCoord}})) (then (br $stop)))
                (br_if $token (i32.le_s (local.get $ve) (local.get $vs)))
                ;; element << 5 | component
                (local.set $index
                  (i32.or (i32.and (i32.shr_u (local.get $inf) (i32.const {{position.coordShift}}))
                                   (i32.const {{position.elementMask}}))
                          (i32.and (local.get $inf) (i32.const {{position.componentMask}}))))
                (if (i32.ge_u (local.get $index) (local.get $size)) (then (br $stop)))
                (local.set $position
                  (i32.load (i32.add (local.get $positions) (i32.shl (local.get $index) (i32.const 2)))))
                (if (i32.eqz (local.get $position)) (then (br $stop)))
                (local.set $present
                  (i32.or (local.get $present)
                    (i32.shl (i32.const 1) (i32.and (local.get $position) (i32.const {{position.numberMask}})))))
                (local.set $kind (i32.and (local.get $position) (i32.const {{position.kindMask}})))
                (if (i32.and (local.get $inf) (i32.const {{tokenInfo.released}}))
                  (then
                    ;; Released: plain values only (KIND_PLAIN), their characters counted.
                    (if (i32.ne (local.get $kind) (i32.const {{position.kindPlain}})) (then (br $stop)))
                    (local.set $length (call $characters (local.get $vs) (local.get $ve) (local.get $rel))))
                  (else
                    ;; KIND_OTHER is checked through its value slot; KIND_NUMBER counts digits.
                    (if (i32.eq (local.get $kind) (i32.const {{position.kindOther}}))
                      (then
                        (br_if $token
                          (call $other (local.get $rec) (local.get $position) (local.get $vs) (local.get $ve)
                            (local.get $codes) (local.get $dec0) (local.get $dec1)))
                        (br $stop)))
                    (local.set $length
                      (if (result i32) (i32.eq (local.get $kind) (i32.const {{position.kindNumber}}))
                        (then (call $digits (local.get $vs) (local.get $ve) (local.get $dec0) (local.get $dec1)))
                        (else (i32.sub (local.get $ve) (local.get $vs)))))))
                (if (i32.lt_s (local.get $length) (i32.const 0)) (then (br $stop)))
                (if (i32.gt_s (local.get $length)
                              (i32.and (i32.shr_u (local.get $position) (i32.const {{position.maxShift}}))
                                      (i32.const {{position.lengthMax}})))
                  (then (br $stop)))
                (if (i32.lt_s (local.get $length)
                              (i32.and (i32.shr_u (local.get $position) (i32.const {{position.minShift}}))
                                      (i32.const {{position.lengthMax}})))
                  (then (br $stop)))
                ;; KIND_CODED, when codes are checked: short ASCII codes only (never released here).
                (br_if $token (i32.or (i32.ne (local.get $kind) (i32.const {{position.kindCoded}})) (i32.eqz (local.get $codes))))
                (if (i32.gt_s (i32.sub (local.get $ve) (local.get $vs)) (i32.const 3)) (then (br $stop)))
                (local.set $vkey (i32.const 1))
                (local.set $vb (i32.const 0))
                (local.set $vi (local.get $vs))
                (block $packed
                  (loop $byte
                    (br_if $packed (i32.ge_u (local.get $vi) (local.get $ve)))
                    (local.set $va (i32.load8_u (local.get $vi)))
                    (local.set $vb (i32.or (local.get $vb) (local.get $va)))
                    (local.set $vkey (i32.or (i32.shl (local.get $vkey) (i32.const 8)) (local.get $va)))
                    (local.set $vi (i32.add (local.get $vi) (i32.const 1)))
                    (br $byte)))
                (if (i32.ge_u (local.get $vb) (i32.const 0x80)) (then (br $stop)))
                (br_if $token
                  (call $hasCode (local.get $rec)
                    (i32.or (i32.shl (i32.and (local.get $position) (i32.const {{position.numberMask}}))
                                     (i32.const {{position.codeShift}}))
                            (local.get $vkey))))
                (br $stop)))

            ;; Presence: required positions, then the composite rules.
            (local.set $va (i32.load offset={{record.required}} (local.get $rec)))
            (if (i32.ne (i32.and (local.get $present) (local.get $va)) (local.get $va))
              (then (br $stop)))
            (local.set $cond (i32.load offset={{record.conditional}} (local.get $rec)))
            (local.set $condEnd
              (i32.add (local.get $cond) (i32.shl (i32.load offset={{record.conditionalInts}} (local.get $rec)) (i32.const 2))))
            (block $rules
              (loop $rule
                (br_if $rules (i32.ge_u (local.get $cond) (local.get $condEnd)))
                (local.set $used
                  (i32.and (local.get $present) (i32.load offset={{conditional.positions}} (local.get $cond))))
                (local.set $mandatory (i32.load offset={{conditional.mandatory}} (local.get $cond)))
                (if (i32.eqz (local.get $mandatory))
                  (then (if (i32.eqz (local.get $used)) (then (br $stop))))
                  (else
                    (if (i32.and (i32.ne (local.get $used) (i32.const 0))
                                 (i32.ne (i32.and (local.get $present) (local.get $mandatory)) (local.get $mandatory)))
                      (then (br $stop)))))
                (local.set $cond (i32.add (local.get $cond) (i32.const {{conditional.bytes}})))
                (br $rule)))))
        ;; The structure step (StructureWalker.acceptId's table path).
        (local.set $code
          (i32.load (i32.add (local.get $trans)
            (i32.shl
              (i32.add (i32.mul (local.get $state) (local.get $tags))
                       (i32.load (i32.add (i32.load offset={{image.denseTags}} (local.get $msg)) (i32.shl (local.get $i) (i32.const 2)))))
              (i32.const 2)))))
        ;; Fits nowhere (-1), or SLOW: TypeScript's.
        (br_if $stop (i32.or (i32.lt_s (local.get $code) (i32.const 0))
                             (i32.and (local.get $code) (i32.const {{transition.slow}}))))
        (local.set $target (i32.and (local.get $code) (i32.const {{transition.nodeMask}})))
        (local.set $level
          (i32.and (i32.shr_u (local.get $code) (i32.const {{transition.levelShift}})) (i32.const {{transition.levelMask}})))
        (if (i32.and (local.get $code) (i32.const {{transition.repeat}}))
          (then
            (local.set $count
              (f64.add (f64.load (i32.add (local.get $counts) (i32.shl (local.get $level) (i32.const 3))))
                       (f64.const 1)))
            (local.set $node
              (i32.load (i32.add (i32.load offset={{image.chainNodes}} (local.get $msg))
                (i32.shl (i32.add (i32.mul (local.get $target) (local.get $depth)) (local.get $level))
                         (i32.const 2)))))
            ;; One repetition too many is reported by TypeScript.
            (br_if $stop
              (f64.eq (local.get $count)
                (f64.add (f64.load (i32.add (i32.load offset={{image.maxima}} (local.get $msg)) (i32.shl (local.get $node) (i32.const 3))))
                         (f64.const 1))))
            (f64.store (i32.add (local.get $counts) (i32.shl (local.get $level) (i32.const 3))) (local.get $count)))
          (else
            (f64.store (i32.add (local.get $counts) (i32.shl (local.get $level) (i32.const 3))) (f64.const 1))))
        (local.set $top (i32.load (i32.add (local.get $levels) (i32.shl (local.get $target) (i32.const 2)))))
        (local.set $l (i32.add (local.get $level) (i32.const 1)))
        (block $filled
          (loop $fill
            (br_if $filled (i32.gt_s (local.get $l) (local.get $top)))
            (f64.store (i32.add (local.get $counts) (i32.shl (local.get $l) (i32.const 3))) (f64.const 1))
            (local.set $l (i32.add (local.get $l) (i32.const 1)))
            (br $fill)))
        (local.set $state (i32.add (local.get $target) (i32.const 1)))
        (local.set $seg (i32.add (local.get $seg) (i32.const 1)))
        (br $next)))
    (i32.store (local.get $io) (local.get $state))
    (local.get $seg))
)
