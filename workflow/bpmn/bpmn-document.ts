import { BpmnModdle, type ModdleElement } from "bpmn-moddle";
import { BPMN_MAX_CHARS } from "../../contracts/bootstrap.ts";
import platformPackage from "../../contracts/bpmn/platform-moddle.json" with { type: "json" };
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";

export type { ModdleElement } from "bpmn-moddle";

/** The namespace of the platform's BPMN extension (contracts/bpmn/platform-moddle.json). */
export const PLATFORM_NAMESPACE = platformPackage.uri;

/** A reader and writer of BPMN 2.0 that knows the platform's extension. */
export function bpmnModdle(): BpmnModdle {
  return new BpmnModdle({ op: platformPackage });
}

/** A document that cannot be deployed, with what is wrong, naming the element. */
export function bpmnRefusal(message: string): PlatformError {
  return new PlatformError(ErrorCode.InvalidArgument, `bpmn: ${message}`);
}

/**
 * The document's elements, read with moddle. Declarations and entities are refused before parsing
 * (a document type could expand entities without bound); so is a document moddle reads with
 * warnings (elements out of place, references to nothing), which would otherwise be dropped.
 */
export async function readBpmn(xml: string): Promise<ModdleElement> {
  if (xml.length > BPMN_MAX_CHARS)
    throw bpmnRefusal(`the document is longer than ${BPMN_MAX_CHARS} characters`);
  if (/<!(DOCTYPE|ENTITY)/i.test(xml)) throw bpmnRefusal("a document type or entity declaration is refused");
  let read: Awaited<ReturnType<BpmnModdle["fromXML"]>>;
  try {
    read = await bpmnModdle().fromXML(xml);
  } catch (error) {
    throw bpmnRefusal(`the document does not read as BPMN 2.0: ${firstLine(error)}`);
  }
  const [warning] = read.warnings;
  if (warning) throw bpmnRefusal(`the document does not read as BPMN 2.0: ${firstLine(warning)}`);
  if (!read.rootElement.$instanceOf("bpmn:Definitions"))
    throw bpmnRefusal("the document is no bpmn:definitions");
  return read.rootElement;
}

function firstLine(error: unknown): string {
  const message =
    error instanceof Error || typeof error === "object"
      ? (error as { message: string }).message
      : String(error);
  return String(message).split("\n")[0]!;
}

/** The elements of a many-valued property, an empty list when it has none. */
export function many(element: ModdleElement | undefined, property: string): ModdleElement[] {
  return (element?.[property] as ModdleElement[] | undefined) ?? [];
}

/** The platform's extension elements of one type under an element (`op:Assignee`, say). */
export function extensionsOf(element: ModdleElement, type: string): ModdleElement[] {
  return many(element.extensionElements as ModdleElement | undefined, "values").filter(
    (value) => value.$type === type,
  );
}
