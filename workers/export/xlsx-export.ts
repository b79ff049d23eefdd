import ExcelJS from "exceljs";
import type { XlsxExport } from "../../contracts/export.ts";

/**
 * Spec 001's spreadsheet export: `data` written row by row from (`row`, `column`), 0-based, into
 * the template's first sheet (or a new workbook); with `label`, a title row of the fields' labels
 * first; in a column whose field has `merge`, a null cell is merged with the cell above it.
 */
export async function renderXlsx(request: XlsxExport, template: Buffer | undefined): Promise<Buffer> {
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
      if (value !== null) sheet.getCell(rowNumber, left + index).value = value;
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
