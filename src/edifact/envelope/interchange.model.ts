import type {
  Group,
  Interchange,
  Message,
  MessageEnvelope,
  MessageReference,
  ParsedInterchange,
  Segment,
} from "./interchange.types.js";
import { readSegment, valueAt } from "./segment.reader.js";

/** The segments of a received message between UNH and UNT, materialised. */
export function messageSegments(parsed: ParsedInterchange, message: MessageEnvelope): Segment[] {
  const out: Segment[] = [];
  const last = message.hasTrailer ? message.lastSegment - 1 : message.lastSegment;
  for (let s = message.firstSegment + 1; s <= last; s++) out.push(readSegment(parsed.tokens, s));
  return out;
}

function opt<K extends string>(key: K, value: string): Partial<Record<K, string>> {
  return value === "" ? {} : ({ [key]: value } as Record<K, string>);
}

/** UNH S016/S017/S018 (data element `element`, 1-based) when present. */
function reference<K extends string>(
  key: K,
  parsed: ParsedInterchange,
  unh: number,
  element: number,
): Partial<Record<K, MessageReference>> {
  const t = parsed.tokens;
  const id = valueAt(t, unh, element);
  if (id === "") return {};
  const ref: MessageReference = {
    id,
    ...opt("version", valueAt(t, unh, element, 1)),
    ...opt("release", valueAt(t, unh, element, 2)),
    ...opt("agency", valueAt(t, unh, element, 3)),
  };
  return { [key]: ref } as Record<K, MessageReference>;
}

function toMessage(parsed: ParsedInterchange, m: MessageEnvelope): Message {
  const t = parsed.tokens;
  const unh = m.firstSegment;
  const sequence = valueAt(t, unh, 4);
  return {
    ref: m.ref,
    identifier: m.identifier,
    ...(m.commonAccessRef !== undefined ? { commonAccessRef: m.commonAccessRef } : {}),
    ...(sequence !== ""
      ? { transferStatus: { sequence, ...opt("firstAndLast", valueAt(t, unh, 4, 1)) } }
      : {}),
    ...reference("subset", parsed, unh, 5),
    ...reference("implementationGuideline", parsed, unh, 6),
    ...reference("scenario", parsed, unh, 7),
    segments: messageSegments(parsed, m),
  };
}

/**
 * The received interchange as plain data (what the serializer takes), so that
 * `toInterchange(parseInterchange(serializeInterchange(x)).interchange)` gives back `x`.
 * Undefined when the input had no UNB.
 */
export function toInterchange(parsed: ParsedInterchange): Interchange | undefined {
  if (!parsed.header) return undefined;
  const t = parsed.tokens;
  const grouped = new Set<number>();
  const groups: Group[] = parsed.groups.map((g) => {
    for (const i of g.messageIndexes) grouped.add(i);
    const s = g.firstSegment;
    const version = valueAt(t, s, 7, 0);
    return {
      ref: g.ref,
      ...opt("groupId", valueAt(t, s, 1)),
      ...(valueAt(t, s, 2) !== ""
        ? { sender: { id: valueAt(t, s, 2), ...opt("qualifier", valueAt(t, s, 2, 1)) } }
        : {}),
      ...(valueAt(t, s, 3) !== ""
        ? { recipient: { id: valueAt(t, s, 3), ...opt("qualifier", valueAt(t, s, 3, 1)) } }
        : {}),
      ...opt("date", valueAt(t, s, 4, 0)),
      ...opt("time", valueAt(t, s, 4, 1)),
      ...opt("agency", valueAt(t, s, 6)),
      ...(version !== ""
        ? {
            messageVersion: {
              version,
              release: valueAt(t, s, 7, 1),
              ...opt("association", valueAt(t, s, 7, 2)),
            },
          }
        : {}),
      ...opt("password", valueAt(t, s, 8)),
      messages: g.messageIndexes.map((i) => toMessage(parsed, parsed.messages[i] as MessageEnvelope)),
    };
  });
  return {
    ...parsed.header,
    separators: parsed.separators,
    messages: parsed.messages.filter((m) => !grouped.has(m.index)).map((m) => toMessage(parsed, m)),
    ...(groups.length > 0 ? { groups } : {}),
  };
}
