/**
 * Plain-text tables and number formatting for the human output. Pure: colours are applied by the
 * caller through `style`, after the padding is computed on the plain text.
 * @module
 */
import { terminalSafe } from 'dsh-loader'

/** One column: its header and alignment (numbers are right-aligned). */
export interface Column {
  header: string
  align?: 'left' | 'right'
}

/** How a table is styled (identity functions when colours are off). */
export interface TableStyle {
  header?: (text: string) => string
  /** Styles one cell, after padding; `column` is the column index. */
  cell?: (text: string, column: number, row: number) => string
}

/**
 * Renders rows under a header, columns separated by two spaces, each as wide as its widest cell
 * (counted in code points). Trailing spaces are trimmed from every line.
 */
export function renderTable(columns: readonly Column[], rows: ReadonlyArray<readonly string[]>, style: TableStyle = {}): string {
  // A cell is one line: whatever a plugin named, it can break neither the row nor the terminal.
  rows = rows.map((row) => row.map((cell) => terminalSafe(cell)))
  const widths = columns.map((column, index) => Math.max(width(column.header), ...rows.map((row) => width(row[index] ?? ''))))
  const pad = (text: string, index: number) => {
    const gap = ' '.repeat(widths[index] - width(text))
    return columns[index].align === 'right' ? gap + text : text + gap
  }
  const header = columns.map((column, index) => pad(column.header, index)).join('  ').trimEnd()
  const lines = [style.header ? style.header(header) : header]
  rows.forEach((row, rowIndex) => {
    const cells = columns.map((_, index) => {
      const padded = pad(row[index] ?? '', index)
      return style.cell ? style.cell(padded, index, rowIndex) : padded
    })
    lines.push(cells.join('  ').trimEnd())
  })
  return lines.join('\n')
}

/** `12345` as `12,345`. */
export function formatCount(value: number): string {
  return Math.round(value).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** A share as a percentage with one decimal: `0.3127` as `31.3%`. */
export function formatShare(share: number): string {
  return `${(Math.round(share * 1000) / 10).toFixed(1)}%`
}

/** `1 section`, `2 sections`. */
export function plural(count: number, one: string, many = one + 's'): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`
}

/** The UTF-8 length of a text in bytes. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

function width(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}
