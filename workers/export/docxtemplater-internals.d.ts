/** docxtemplater's repair pass over rendered parts (empty cells get a paragraph, empty rows go). */
declare module "docxtemplater/js/join-uncorrupt.js" {
  export default function joinUncorrupt(
    parts: string[],
    options: { fileTypeConfig: unknown; contentType: string },
  ): string[];
}
