import ExcelJS from "exceljs";
import type { ExportField, XlsxExport } from "../../contracts/export.ts";
import { toDate, wallClockDate } from "./date-pattern.ts";

/** Number formats of the cells of date fields, by the field's `type`. */
const DATE_FORMATS = new Map([
  ["date", "yyyy-mm-dd"],
  ["datetime", "yyyy-mm-dd hh:mm:ss"],
]);

type Cell = XlsxExport["data"][number][number];

/**
 * A cell's value and number format: in a `date` or `datetime` field, Unix seconds or an ISO 8601
 * string become a date cell showing the wall-clock time in `timeZone`; anything else is written as is.
 */
function cellOf(value: Cell, field: ExportField | undefined, timeZone: string) {
  const format = field?.type && DATE_FORMATS.get(field.type.toLowerCase());
  const date = format ? toDate(value, timeZone) : undefined;
  return date ? { value: wallClockDate(date, timeZone), numFmt: format } : { value };
}

/**
 * Spec 001's spreadsheet export: `data` written row by row from (`row`, `column`), 0-based, into
 * the template's first sheet (or a new workbook); with `label`, a title row of the fields' labels
 * first; in a column whose field has `merge`, a null cell is merged with the cell above it; a
 * field typed `date` or `datetime` makes its cells dates.
 */
export async function renderXlsx(
  request: XlsxExport,
  template: Buffer | undefined,
  timeZone: string,
): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  if (template) await workbook.xlsx.load(template as never);
  const sheet = workbook.worksheets[0] ?? workbook.addWorksheet("Sheet1");
  // exceljs counts rows and columns from 1.
  const top = request.row + 1;
  const left = request.column + 1;
  let rowNumber = top;
  if (request.label) {
    request.fields.forEach((field, index) => {
      sheet.getCell(rowNumber, left + index).value = field.label ?? field.name;
    });
    rowNumber++;
  }
  const firstDataRow = rowNumber;
  for (const values of request.data) {
    values.forEach((value, index) => {
      if (value === null) return;
      const cell = sheet.getCell(rowNumber, left + index);
      const written = cellOf(value, request.fields[index], timeZone);
      cell.value = written.value;
      if (written.numFmt) cell.numFmt = written.numFmt;
    });
    rowNumber++;
  }
  request.fields.forEach((field, index) => {
    if (!field.merge) return;
    // Runs of nulls below a value become one merged cell with it.
    let start: number | undefined;
    const close = (end: number) => {
      if (start !== undefined && end > start) sheet.mergeCells(start, left + index, end, left + index);
    };
    request.data.forEach((values, offset) => {
      const row = firstDataRow + offset;
      if ((values[index] ?? null) !== null) {
        close(row - 1);
        start = row;
      }
    });
    close(firstDataRow + request.data.length - 1);
  });
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
