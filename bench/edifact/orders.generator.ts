/** Generates a valid D.96A ORDERS interchange of about `targetBytes` bytes (syntax 3, UNOC). */
export function generateOrders(targetBytes: number): Buffer {
  const head =
    "UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+BENCH1'UNH+1+ORDERS:D:96A:UN'" +
    "BGM+220+PO-BENCH+9'DTM+137:20240315:102'NAD+BY+5412345000013::9'NAD+SU+4012345500004::9'CUX+2:EUR:9'";
  const parts: string[] = [head];
  let size = head.length;
  let lines = 0;
  let segments = 7;
  const tail = (n: number, segs: number): string => `UNS+S'CNT+2:${n}'UNT+${segs + 2}+1'UNZ+1+BENCH1'`;
  while (size + 60 < targetBytes) {
    lines++;
    const gtin = String(4000862000000 + lines).padStart(13, "0");
    const line =
      `LIN+${lines}++${gtin}:EN'PIA+1+ART-${lines}:SA'IMD+F++:::Article ${lines} 500 ml?'s bottle'` +
      `QTY+21:${(lines % 97) + 1}:PCE'DTM+2:20240320:102'PRI+AAA:${(lines % 1000) / 10 + 1}:CT'`;
    parts.push(line);
    size += line.length;
    segments += 6;
  }
  parts.push(tail(lines, segments));
  return Buffer.from(parts.join(""), "latin1");
}
