// The two packages ship JavaScript without declarations; these are the parts the platform calls.
declare module "bpmn-moddle" {
  /** An element of a BPMN document as moddle reads it; its properties depend on `$type`. */
  export interface ModdleElement {
    $type: string;
    $instanceOf(type: string): boolean;
    [property: string]: unknown;
  }
  export interface ParseWarning {
    message: string;
  }
  export class BpmnModdle {
    constructor(packages?: Record<string, unknown>);
    fromXML(
      xml: string,
      typeName?: string,
    ): Promise<{ rootElement: ModdleElement; warnings: ParseWarning[] }>;
    toXML(element: ModdleElement, options?: { format?: boolean }): Promise<{ xml: string }>;
    create(type: string, properties?: Record<string, unknown>): ModdleElement;
  }
}

declare module "bpmn-auto-layout" {
  /** The document again, with a diagram (DI) drawn for its first process. */
  export function layoutProcess(xml: string): Promise<string>;
}
