;; The structural scan of src/parse/parse.ts, sixteen bytes at a time (WebAssembly SIMD).
;; Source of src/parse/scan-wasm.ts: `npm run build:wasm` assembles it; test/parse/parse.test.ts checks that
;; the two agree. What the scan finds and why: docs/parsing.md.
;;
;; scan(length, maxDepth) reads the body at memory[0, length), followed by at least 32 zero bytes,
;; and returns -1 as soon as brackets nest deeper than maxDepth (draft §7.4); otherwise
;;   members << 2 | LONE << 1 | NUMBERS
;; where members counts the colons outside strings (each member has exactly one), LONE says a \u
;; escape is half a surrogate pair without its other half, and NUMBERS says a number has an
;; exponent or two whole blocks of digits (as every run of 47 or more has), so may not keep its
;; value (draft §5.1).
;; Exact for valid JSON; on invalid JSON its findings do not matter, as JSON.parse rejects it.
;;
;; decode(length, out) reads the same bytes, valid UTF-8 (isUtf8 said so) followed by at least 32
;; zero bytes, writes them as UTF-16LE from memory[out] (which must have room for 2 * length + 32
;; bytes) and returns the number of code units: the text src/parse/parse.ts hands to JSON.parse.
(module
  (memory (export "memory") 1)

  (func (export "scan") (param $length i32) (param $maxDepth i32) (result i32)
    (local $p i32)          ;; first byte of the current block
    (local $v v128)         ;; the block
    (local $t v128)         ;; the block with bit 5 set: folds '[' into '{', ']' into '}', 'E' into 'e'
    (local $quotes i32)     ;; bit i: byte i is a quote that opens or closes a string
    (local $slashes i32)    ;; bit i: byte i is a backslash
    (local $escaped i32)    ;; bit i: byte i is escaped by a backslash
    (local $carry i32)      ;; 1 if this block's first byte is escaped by the previous block's last
    (local $inside i32)     ;; 0xffff if the previous block ended inside a string, else 0
    (local $outside i32)    ;; bit i: byte i is outside strings (closing quotes included)
    (local $opens i32)
    (local $closes i32)
    (local $digits i32)
    (local $lastDigit i32)  ;; 1 if the previous block ended with a digit
    (local $allDigits i32)  ;; 1 if the previous block was all digits outside strings
    (local $members i32)
    (local $depth i32)
    (local $flags i32)
    (local $m i32)
    (local $u i32)          ;; position of a \u escape's 'u'
    (local $unit i32)
    (local $paired i32)     ;; position of the 'u' of the low half of the last pair seen
    (local.set $paired (i32.const -1))

    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $p) (local.get $length)))
        (local.set $v (v128.load (local.get $p)))
        (local.set $quotes (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))))
        (local.set $slashes (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92))))

        ;; the common case in text: a block wholly inside one string
        (if (i32.and (i32.eqz (i32.or (i32.or (local.get $quotes) (local.get $slashes)) (local.get $carry)))
                     (local.get $inside))
          (then
            (local.set $lastDigit (i32.const 0))
            (local.set $allDigits (i32.const 0))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (br $block)))

        ;; escapes: a backslash escapes the next byte, unless it is itself escaped
        (local.set $escaped (local.get $carry))
        (if (i32.or (local.get $slashes) (local.get $carry))
          (then
            (local.set $m (i32.and (local.get $slashes) (i32.xor (local.get $carry) (i32.const -1))))
            (block $escapes
              (loop $escape
                (br_if $escapes (i32.eqz (local.get $m)))
                (local.set $escaped (i32.or (local.get $escaped) (i32.shl (i32.const 2) (i32.ctz (local.get $m)))))
                (local.set $m (i32.and (local.get $m) (i32.xor (i32.shl (i32.const 3) (i32.ctz (local.get $m))) (i32.const -1))))
                (br $escape)))
            (local.set $carry (i32.shr_u (local.get $escaped) (i32.const 16)))
            (local.set $escaped (i32.and (local.get $escaped) (i32.const 0xffff)))
            (local.set $quotes (i32.and (local.get $quotes) (i32.xor (local.get $escaped) (i32.const -1))))

            ;; every \u escape: a surrogate must be a high half followed at once by a low half
            ;; (RFC 7493 §2.1); the zero bytes past the body end any lookahead
            (local.set $m (i32.and (local.get $escaped)
              (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 117 117 117 117 117 117 117 117 117 117 117 117 117 117 117 117)))))
            (block $units
              (loop $unit
                (br_if $units (i32.eqz (local.get $m)))
                (local.set $u (i32.add (local.get $p) (i32.ctz (local.get $m))))
                (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
                (br_if $unit (i32.eq (local.get $u) (local.get $paired)))
                (local.set $unit (call $hex4 (i32.add (local.get $u) (i32.const 1))))
                (if (i32.eq (i32.and (local.get $unit) (i32.const 0xfc00)) (i32.const 0xd800))
                  (then
                    (if (i32.and
                          (i32.eq (i32.load16_u (i32.add (local.get $u) (i32.const 5))) (i32.const 0x755c)) ;; "\u"
                          (i32.eq (i32.and (call $hex4 (i32.add (local.get $u) (i32.const 7))) (i32.const 0xfc00)) (i32.const 0xdc00)))
                      (then (local.set $paired (i32.add (local.get $u) (i32.const 6))))
                      (else (local.set $flags (i32.or (local.get $flags) (i32.const 2))))))
                  (else
                    (if (i32.eq (i32.and (local.get $unit) (i32.const 0xfc00)) (i32.const 0xdc00))
                      (then (local.set $flags (i32.or (local.get $flags) (i32.const 2)))))))
                (br $unit)))))

        ;; strings: a prefix XOR of the quotes marks each opening quote and what follows it up to
        ;; its closing quote; whatever is left is outside
        (local.set $outside (local.get $quotes))
        (local.set $outside (i32.xor (local.get $outside) (i32.shl (local.get $outside) (i32.const 1))))
        (local.set $outside (i32.xor (local.get $outside) (i32.shl (local.get $outside) (i32.const 2))))
        (local.set $outside (i32.xor (local.get $outside) (i32.shl (local.get $outside) (i32.const 4))))
        (local.set $outside (i32.xor (local.get $outside) (i32.shl (local.get $outside) (i32.const 8))))
        (local.set $outside (i32.and (i32.xor (local.get $outside) (local.get $inside)) (i32.const 0xffff)))
        (local.set $inside (i32.sub (i32.const 0) (i32.shr_u (local.get $outside) (i32.const 15))))
        (local.set $inside (i32.and (local.get $inside) (i32.const 0xffff)))
        (local.set $outside (i32.xor (local.get $outside) (i32.const 0xffff)))

        ;; members: one colon each
        (local.set $members (i32.add (local.get $members) (i32.popcnt (i32.and (local.get $outside)
          (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 58 58 58 58 58 58 58 58 58 58 58 58 58 58 58 58)))))))

        ;; depth, exact at the moment it would pass maxDepth
        (local.set $t (v128.or (local.get $v) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
        (local.set $opens (i32.and (local.get $outside)
          (i8x16.bitmask (i8x16.eq (local.get $t) (v128.const i8x16 123 123 123 123 123 123 123 123 123 123 123 123 123 123 123 123)))))
        (local.set $closes (i32.and (local.get $outside)
          (i8x16.bitmask (i8x16.eq (local.get $t) (v128.const i8x16 125 125 125 125 125 125 125 125 125 125 125 125 125 125 125 125)))))
        (if (i32.gt_s (i32.add (local.get $depth) (i32.popcnt (local.get $opens))) (local.get $maxDepth))
          (then
            (local.set $m (i32.or (local.get $opens) (local.get $closes)))
            (block $brackets
              (loop $bracket
                (br_if $brackets (i32.eqz (local.get $m)))
                (if (i32.and (local.get $opens) (i32.and (local.get $m) (i32.sub (i32.const 0) (local.get $m))))
                  (then
                    (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
                    (br_if $done (i32.gt_s (local.get $depth) (local.get $maxDepth))))
                  (else (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))))
                (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
                (br $bracket))))
          (else
            (local.set $depth (i32.sub (i32.add (local.get $depth) (i32.popcnt (local.get $opens)))
                                       (i32.popcnt (local.get $closes))))))

        ;; numbers: an exponent is an 'e' or 'E' right after a digit; a run of two whole blocks
        ;; of digits outside strings has at least 32 digits
        (local.set $digits (i8x16.bitmask (i8x16.lt_u
          (i8x16.sub (local.get $v) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))
          (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))))
        (if (i32.and (i32.and (local.get $outside)
                (i8x16.bitmask (i8x16.eq (local.get $t) (v128.const i8x16 101 101 101 101 101 101 101 101 101 101 101 101 101 101 101 101))))
              (i32.or (i32.shl (local.get $digits) (i32.const 1)) (local.get $lastDigit)))
          (then (local.set $flags (i32.or (local.get $flags) (i32.const 1)))))
        (local.set $lastDigit (i32.shr_u (local.get $digits) (i32.const 15)))
        (local.set $m (i32.eq (i32.and (local.get $digits) (local.get $outside)) (i32.const 0xffff)))
        (if (i32.and (local.get $m) (local.get $allDigits))
          (then (local.set $flags (i32.or (local.get $flags) (i32.const 1)))))
        (local.set $allDigits (local.get $m))

        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $block))
      )
    (if (result i32) (i32.gt_s (local.get $depth) (local.get $maxDepth))
      (then (i32.const -1))
      (else (i32.or (i32.shl (local.get $members) (i32.const 2)) (local.get $flags)))))

  (func (export "decode") (param $length i32) (param $out i32) (result i32)
    (local $p i32)          ;; the next byte to decode
    (local $q i32)          ;; where its code unit goes
    (local $v v128)
    (local $high i32)       ;; bit i: byte i of the block is not ASCII
    (local $c i32)
    (local $point i32)
    (local.set $q (local.get $out))
    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $p) (local.get $length)))
        ;; sixteen bytes widened to sixteen units: right for every ASCII byte among them, and
        ;; the units past the first byte that is not ASCII are written again below
        (local.set $v (v128.load (local.get $p)))
        (v128.store (local.get $q) (i16x8.extend_low_i8x16_u (local.get $v)))
        (v128.store offset=16 (local.get $q) (i16x8.extend_high_i8x16_u (local.get $v)))
        (local.set $high (i8x16.bitmask (local.get $v)))
        (if (i32.eqz (local.get $high))
          (then
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 32)))
            (br $block)))
        (local.set $c (i32.ctz (local.get $high)))
        (local.set $p (i32.add (local.get $p) (local.get $c)))
        (local.set $q (i32.add (local.get $q) (i32.shl (local.get $c) (i32.const 1))))
        ;; then one code point at a time, up to the next ASCII byte (a zero past the body is one)
        (loop $points
          (local.set $c (i32.load8_u (local.get $p)))
          (br_if $block (i32.lt_u (local.get $c) (i32.const 0x80)))
          (if (i32.lt_u (local.get $c) (i32.const 0xe0))
            (then ;; 110xxxxx 10xxxxxx
              (i32.store16 (local.get $q) (i32.or
                (i32.shl (i32.and (local.get $c) (i32.const 0x1f)) (i32.const 6))
                (i32.and (i32.load8_u offset=1 (local.get $p)) (i32.const 0x3f))))
              (local.set $p (i32.add (local.get $p) (i32.const 2)))
              (local.set $q (i32.add (local.get $q) (i32.const 2))))
            (else (if (i32.lt_u (local.get $c) (i32.const 0xf0))
              (then ;; 1110xxxx 10xxxxxx 10xxxxxx
                (i32.store16 (local.get $q) (i32.or (i32.or
                  (i32.shl (i32.and (local.get $c) (i32.const 0x0f)) (i32.const 12))
                  (i32.shl (i32.and (i32.load8_u offset=1 (local.get $p)) (i32.const 0x3f)) (i32.const 6)))
                  (i32.and (i32.load8_u offset=2 (local.get $p)) (i32.const 0x3f))))
                (local.set $p (i32.add (local.get $p) (i32.const 3)))
                (local.set $q (i32.add (local.get $q) (i32.const 2))))
              (else ;; 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx: past U+FFFF, a surrogate pair
                (local.set $point (i32.sub (i32.or (i32.or (i32.or
                  (i32.shl (i32.and (local.get $c) (i32.const 0x07)) (i32.const 18))
                  (i32.shl (i32.and (i32.load8_u offset=1 (local.get $p)) (i32.const 0x3f)) (i32.const 12)))
                  (i32.shl (i32.and (i32.load8_u offset=2 (local.get $p)) (i32.const 0x3f)) (i32.const 6)))
                  (i32.and (i32.load8_u offset=3 (local.get $p)) (i32.const 0x3f)))
                  (i32.const 0x10000)))
                (i32.store16 (local.get $q) (i32.or (i32.const 0xd800) (i32.shr_u (local.get $point) (i32.const 10))))
                (i32.store16 offset=2 (local.get $q) (i32.or (i32.const 0xdc00) (i32.and (local.get $point) (i32.const 0x3ff))))
                (local.set $p (i32.add (local.get $p) (i32.const 4)))
                (local.set $q (i32.add (local.get $q) (i32.const 4)))))))
          (br $points))))
    ;; the last whole block may have run past the body into its zero bytes, a unit each
    (i32.sub (i32.shr_u (i32.sub (local.get $q) (local.get $out)) (i32.const 1))
             (i32.sub (local.get $p) (local.get $length))))

  ;; The code unit spelled by the four hex digits at $at, or -1.
  (func $hex4 (param $at i32) (result i32)
    (local $unit i32) (local $c i32) (local $k i32)
    (loop $digit
      (local.set $c (i32.load8_u (i32.add (local.get $at) (local.get $k))))
      (if (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10))
        (then (local.set $c (i32.sub (local.get $c) (i32.const 48))))
        (else
          (local.set $c (i32.sub (i32.or (local.get $c) (i32.const 32)) (i32.const 87)))
          (if (i32.ge_u (i32.sub (local.get $c) (i32.const 10)) (i32.const 6))
            (then (return (i32.const -1))))))
      (local.set $unit (i32.or (i32.shl (local.get $unit) (i32.const 4)) (local.get $c)))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $digit (i32.lt_u (local.get $k) (i32.const 4))))
    (local.get $unit))
)
