/**
 * Hanse UN/EDIFACT engine: bytes in, typed interchange and issues out; builders produce
 * outbound interchanges as bytes. No I/O and nothing from the rest of the service.
 */
export { ErrorCode, describeErrorCode, type ErrorCodeValue } from "./syntax/error-codes.js";
export {
  DEFAULT_SEPARATORS,
  DEFAULT_SEPARATORS_V4,
  defaultSeparators,
  type Separators,
} from "./syntax/separators.js";
export { SYNTAX_IDENTIFIERS, isSyntaxIdentifier, type SyntaxIdentifier } from "./syntax/charset.js";
export {
  tokenize,
  tokenText,
  type TokenTable,
  type TokenizerIssue,
  type TokenizeOptions,
} from "./syntax/tokenizer.js";

export type { EdifactIssue, IssueLevel, IssueScope } from "./issue.types.js";
export { formatIssue } from "./issue.format.js";

export type {
  Group,
  GroupEnvelope,
  Interchange,
  InterchangeHeader,
  Message,
  MessageEnvelope,
  MessageIdentifier,
  MessageReference,
  ParsedInterchange,
  ParseResult,
  PartyId,
  Segment,
  TransferStatus,
} from "./envelope/interchange.types.js";
export { parseInterchange, type ParseOptions } from "./envelope/interchange.parser.js";
export { messageSegments, toInterchange } from "./envelope/interchange.model.js";
export { readSegment, tagOf, valueAt } from "./envelope/segment.reader.js";
export {
  InterchangeScanner,
  scanInterchange,
  type InterchangeScanResult,
} from "./envelope/interchange-scanner.js";

export type {
  CompactDirectory,
  CompositeDef,
  Directory,
  GroupNode,
  MessageDef,
  SegmentDef,
  SegmentNode,
  SimpleElementDef,
  StructureNode,
} from "./directories/directory.types.js";
export { loadDirectory } from "./directories/directory.loader.js";
export {
  BUILT_IN_DIRECTORIES,
  getCompactDirectory,
  getDirectory,
  isBuiltInDirectory,
  type BuiltInDirectoryId,
} from "./directories/directory.registry.js";
export { importDirectory, type ImportOptions } from "./directories/untdid.importer.js";
export {
  directoryResolver,
  isDirectoryResolver,
  type DirectoryResolver,
} from "./directories/directory.resolver.js";
export { SERVICE_DIRECTORIES } from "./directories/service-directories.js";

export {
  validateInterchange,
  type MessageVerdict,
  type ValidateOptions,
  type ValidationReport,
} from "./validation/interchange.validator.js";
export { StructureWalker } from "./validation/structure.validator.js";

export { serializeInterchange, EdifactSerializeError, type SerializeOptions } from "./messages/serializer.js";
export { EdifactBuildError, type OutboundEnvelope } from "./messages/outbound.js";
export type { OrderRef, PartyRef } from "./messages/business.types.js";
export { buildContrl, ContrlAction, type ContrlOptions } from "./messages/contrl.builder.js";
export { buildAperak, type AperakInput, type ApplicationError } from "./messages/aperak.builder.js";
export {
  buildOrdrsp,
  LineAction,
  ResponseType,
  type LineActionCode,
  type OrderLineResponse,
  type OrdrspInput,
  type ResponseTypeCode,
} from "./messages/ordrsp.builder.js";

export {
  inspectInterchange,
  issueFinding,
  type Finding,
  type InspectedSegment,
  type InspectOptions,
  type InterchangeInspection,
} from "./inspection.js";
