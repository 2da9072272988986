;; The tokenizer's hot loop in WebAssembly with 128-bit SIMD (see simd-scan.ts, which drives it,
;; and scripts/build-wasm.ts, which turns this file into tokenizer.wasm.ts).
;;
;; Every 16 bytes are compared with the five service characters at once; the bits of the
;; matches are then taken one by one, so the work per byte is a fraction of a comparison and the
;; work per token is the same as in a scalar loop. The byte classes come from the same table as
;; the JavaScript tokenizer's (so separators that an invalid UNA made equal resolve the same
;; way). What is rare is only recorded here and worded by tokenizer.ts: blocks holding a byte the
;; repertoire does not allow, and release characters that release nothing. tokenizer.reference.ts
;; states the same rules one byte at a time.
;;
;; Every name in double braces is a number of src/edifact/wasm-layout.ts, the table the driver reads too;
;; scripts/wasm-modules.ts puts the values in before assembling. Class `data` is 0 (tested with
;; eqz below; wasm-modules.test.ts checks it).
;;
;; Memory layout (TOKENIZER_MEMORY; byte offsets):
;;   classes     byte class per byte value (256 bytes)
;;   nibblesLow  16-byte table by low nibble, nibblesHigh by high nibble: (lo[b & 15] &
;;               hi[b >> 4]) != 0 for every byte b of class BAD (and possibly others, which the
;;               driver rules out)
;;   state       i32 slots (TOKENIZER_STATE; `state.x` is the address of slot x)
;;   input       one window of the input, followed by 16 bytes (the input's next ones, or
;;               zeros), then the output regions, each large enough for a whole window: a byte
;;               ends at most one token and one segment, and holds at most one release character
;;               or starts one block.
(module
  (import "env" "memory" (memory 1))

  ;; State slots. Positions written to the outputs are relative to `base`; p, start, end and
  ;; inputEnd are absolute. layout: the input so far ends in line breaks after a terminator
  ;; (skip them at the start); tokenBase: the tokens before this window (segment starts are
  ;; written as absolute token indexes); rel and rep repeat comp when not in use; filler is a
  ;; byte of class data.

  ;; Skips line breaks from `start` (layout after a terminator) up to `end`, overwriting them in
  ;; this copy with a data byte so that the repertoire check does not see them.
  (func $layout (param $start i32) (param $end i32) (param $filler i32) (result i32)
    (local $b i32)
    (block $done
      (loop $skip
        (br_if $done (i32.ge_u (local.get $start) (local.get $end)))
        (local.set $b (i32.load8_u (local.get $start)))
        (br_if $done (i32.and (i32.ne (local.get $b) (i32.const 13)) (i32.ne (local.get $b) (i32.const 10))))
        (i32.store8 (local.get $start) (local.get $filler))
        (local.set $start (i32.add (local.get $start) (i32.const 1)))
        (br $skip)))
    (local.get $start))

  (func (export "run")
    (local $p i32) (local $start i32) (local $coord i32) (local $tc i32) (local $sc i32)
    (local $skip i32) (local $nbl i32) (local $nri i32) (local $end i32)
    (local $base i32) (local $ts i32) (local $ti i32) (local $se i32) (local $st i32)
    (local $bl i32) (local $ri i32) (local $filler i32)
    (local $mask i32) (local $bit i32) (local $i i32) (local $c i32) (local $next i32)
    (local $last i32) (local $lay i32) (local $inputEnd i32) (local $tokenBase i32)
    (local $v v128) (local $vc v128) (local $ve v128) (local $vt v128) (local $vr v128)
    (local $vp v128) (local $lo v128) (local $hi v128) (local $nib v128)

    (local.set $p (i32.load (i32.const {{state.p}})))
    (local.set $start (i32.load (i32.const {{state.start}})))
    (local.set $coord (i32.load (i32.const {{state.coord}})))
    (local.set $tc (i32.load (i32.const {{state.tc}})))
    (local.set $sc (i32.load (i32.const {{state.sc}})))
    (local.set $skip (i32.load (i32.const {{state.skip}})))
    (local.set $nbl (i32.load (i32.const {{state.nbl}})))
    (local.set $nri (i32.load (i32.const {{state.nri}})))
    (local.set $end (i32.load (i32.const {{state.end}})))
    (local.set $base (i32.load (i32.const {{state.base}})))
    (local.set $ts (i32.load (i32.const {{state.ts}})))
    (local.set $ti (i32.load (i32.const {{state.ti}})))
    (local.set $se (i32.load (i32.const {{state.se}})))
    (local.set $st (i32.load (i32.const {{state.st}})))
    (local.set $bl (i32.load (i32.const {{state.bl}})))
    (local.set $ri (i32.load (i32.const {{state.ri}})))
    (local.set $vc (i8x16.splat (i32.load (i32.const {{state.comp}}))))
    (local.set $ve (i8x16.splat (i32.load (i32.const {{state.elem}}))))
    (local.set $vt (i8x16.splat (i32.load (i32.const {{state.term}}))))
    (local.set $vr (i8x16.splat (i32.load (i32.const {{state.rel}}))))
    (local.set $vp (i8x16.splat (i32.load (i32.const {{state.rep}}))))
    (local.set $filler (i32.load (i32.const {{state.filler}})))
    (local.set $lay (i32.load (i32.const {{state.layout}})))
    (local.set $inputEnd (i32.load (i32.const {{state.inputEnd}})))
    (local.set $tokenBase (i32.load (i32.const {{state.tokenBase}})))
    ;; The previous window ended in layout: it goes on at the start of this one.
    (if (local.get $lay)
      (then
        (local.set $start (call $layout (local.get $start) (local.get $end) (local.get $filler)))
        (local.set $lay (i32.ge_u (local.get $start) (local.get $end)))))
    (local.set $lo (v128.load (i32.const {{tokenizer.nibblesLow}})))
    (local.set $hi (v128.load (i32.const {{tokenizer.nibblesHigh}})))
    (local.set $nib (i8x16.splat (i32.const 15)))

    (block $exit
      (loop $blocks
        (br_if $exit (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $v (v128.load (local.get $p)))
        (local.set $mask (i8x16.bitmask
          (v128.or
            (v128.or (i8x16.eq (local.get $v) (local.get $vc)) (i8x16.eq (local.get $v) (local.get $ve)))
            (v128.or
              (i8x16.eq (local.get $v) (local.get $vt))
              (v128.or (i8x16.eq (local.get $v) (local.get $vr)) (i8x16.eq (local.get $v) (local.get $vp)))))))
        ;; Bytes past the input (the last block's tail) are not part of it.
        (local.set $last (i32.const 0xffff))
        (if (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end))
          (then
            (local.set $last (i32.sub
              (i32.shl (i32.const 1) (i32.sub (local.get $end) (local.get $p))) (i32.const 1)))
            (local.set $mask (i32.and (local.get $mask) (local.get $last)))))
        (if (local.get $skip)
          (then
            (local.set $mask (i32.and (local.get $mask) (i32.const -2)))
            (local.set $skip (i32.const 0))))
        (block $bits_done
          (loop $bits
            (br_if $bits_done (i32.eqz (local.get $mask)))
            (local.set $bit (i32.ctz (local.get $mask)))
            (local.set $mask (i32.and (local.get $mask) (i32.sub (local.get $mask) (i32.const 1))))
            (local.set $i (i32.add (local.get $p) (local.get $bit)))
            (local.set $c (i32.load8_u (i32.load8_u (local.get $i))))
            ;; Release character (class 5): the next byte is data, whatever it is.
            (if (i32.eq (local.get $c) (i32.const {{class.release}}))
              (then
                (local.set $coord (i32.or (local.get $coord) (i32.const {{tokenInfo.released}})))
                ;; It must release a service character: data (0) or a bad byte (6) is an issue.
                (local.set $next (i32.const {{class.bad}}))
                (if (i32.lt_u (i32.add (local.get $i) (i32.const 1)) (local.get $inputEnd))
                  (then (local.set $next
                    (i32.load8_u (i32.load8_u (i32.add (local.get $i) (i32.const 1)))))))
                (if (i32.or (i32.eqz (local.get $next)) (i32.eq (local.get $next) (i32.const {{class.bad}})))
                  (then
                    (i32.store
                      (i32.add (local.get $ri) (i32.shl (local.get $nri) (i32.const 2)))
                      (i32.sub (local.get $i) (local.get $base)))
                    (local.set $nri (i32.add (local.get $nri) (i32.const 1)))))
                (if (i32.eq (local.get $bit) (i32.const 15))
                  (then (local.set $skip (i32.const 1)))
                  (else (local.set $mask (i32.and (local.get $mask)
                    (i32.xor (i32.shl (i32.const 2) (local.get $bit)) (i32.const -1))))))
                (br $bits)))
            ;; Classes 1–4 end a token (a byte matched only through a repeated splat is data).
            (if (i32.or (i32.eqz (local.get $c)) (i32.gt_u (local.get $c) (i32.const {{class.repetition}})))
              (then (br $bits)))
            (i32.store (i32.add (local.get $ts) (i32.shl (local.get $tc) (i32.const 2)))
              (i32.sub (local.get $start) (local.get $base)))
            (i32.store (i32.add (local.get $ti) (i32.shl (local.get $tc) (i32.const 2))) (local.get $coord))
            (local.set $tc (i32.add (local.get $tc) (i32.const 1)))
            (local.set $start (i32.add (local.get $i) (i32.const 1)))
            (local.set $lay (i32.const 0))
            (if (i32.eq (local.get $c) (i32.const {{class.component}}))
              (then
                (local.set $coord (i32.add (i32.and (local.get $coord) (i32.const {{tokenInfo.coordMask}})) (i32.const 1))))
              (else (if (i32.eq (local.get $c) (i32.const {{class.element}}))
                (then
                  (local.set $coord (i32.shl
                    (i32.add (i32.and (i32.shr_u (local.get $coord) (i32.const {{tokenInfo.elemShift}})) (i32.const {{tokenInfo.elemMax}}))
                      (i32.const 1))
                    (i32.const {{tokenInfo.elemShift}}))))
                (else (if (i32.eq (local.get $c) (i32.const {{class.terminator}}))
                  (then
                    (i32.store (i32.add (local.get $se) (i32.shl (local.get $sc) (i32.const 2)))
                      (i32.sub (local.get $i) (local.get $base)))
                    (local.set $sc (i32.add (local.get $sc) (i32.const 1)))
                    (i32.store (i32.add (local.get $st) (i32.shl (local.get $sc) (i32.const 2)))
                      (i32.add (local.get $tc) (local.get $tokenBase)))
                    (local.set $coord (i32.const 0))
                    ;; Line breaks after a terminator are layout (see $layout).
                    (local.set $start (call $layout (local.get $start) (local.get $end) (local.get $filler)))
                    (local.set $lay (i32.ge_u (local.get $start) (local.get $end))))
                  (else
                    ;; Repetition separator: next occurrence of the same element.
                    (local.set $coord (i32.add
                      (i32.and (local.get $coord) (i32.const {{tokenInfo.elemField}}))
                      (i32.add (i32.and (local.get $coord) (i32.const {{tokenInfo.repField}})) (i32.const {{tokenInfo.repOne}}))))))))))
            (br $bits)))
        ;; The repertoire check of the block, on the copy as the layout skip left it.
        (local.set $v (v128.load (local.get $p)))
        (if (i32.and (local.get $last) (i8x16.bitmask (i8x16.ne
              (v128.and
                (i8x16.swizzle (local.get $lo) (v128.and (local.get $v) (local.get $nib)))
                (i8x16.swizzle (local.get $hi) (i8x16.shr_u (local.get $v) (i32.const 4))))
              (v128.const i32x4 0 0 0 0))))
          (then
            (i32.store (i32.add (local.get $bl) (i32.shl (local.get $nbl) (i32.const 2)))
              (i32.sub (local.get $p) (local.get $base)))
            (local.set $nbl (i32.add (local.get $nbl) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $blocks)))

    (i32.store (i32.const {{state.p}}) (local.get $p))
    (i32.store (i32.const {{state.start}}) (local.get $start))
    (i32.store (i32.const {{state.coord}}) (local.get $coord))
    (i32.store (i32.const {{state.tc}}) (local.get $tc))
    (i32.store (i32.const {{state.sc}}) (local.get $sc))
    (i32.store (i32.const {{state.skip}}) (local.get $skip))
    (i32.store (i32.const {{state.nbl}}) (local.get $nbl))
    (i32.store (i32.const {{state.nri}}) (local.get $nri))
    (i32.store (i32.const {{state.layout}}) (local.get $lay)))
)
