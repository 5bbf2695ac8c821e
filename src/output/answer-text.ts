/**
 * `bk api`'s answer as it prints it: the service's JSON reindented, every number as received
 * (`12345678901234567.89` is not rounded to a double) and keys in their order, duplicates kept.
 */
import {JsonText, parseJsonTree, printJsonTree, type JsonNode} from '../shared/exact-json.js'

/**
 * The answer's text to print, or undefined for an empty body. An answer that is not JSON is
 * printed as a JSON string, so `--json` stays JSON.
 */
export function answerText(text: string, contentType: string | undefined): JsonText | undefined {
  if (text === '') return undefined
  const tree = jsonTree(text, contentType)
  return new JsonText(tree ? printJsonTree(tree, 2) : JSON.stringify(text))
}

/** The items of every page (`--paginate`) as one array. */
export function itemsText(items: JsonNode[]): JsonText {
  return new JsonText(printJsonTree({kind: 'array', items}, 2))
}

/** The items of one page of a list and its next page token, or undefined if it is not a list. */
export function pageOf(
  text: string,
  contentType: string | undefined,
): {items: JsonNode[]; nextPageToken: string | undefined} | undefined {
  const tree = jsonTree(text, contentType)
  const data = tree && member(tree, 'data')
  if (data?.kind !== 'array') return undefined
  const pagination = member(tree!, 'pagination')
  const token = pagination && member(pagination, 'next_page_token')
  return {items: data.items, nextPageToken: token?.kind === 'string' && token.value ? token.value : undefined}
}

/** The array or object of a JSON answer, read as the client reads one (by its type or first character). */
function jsonTree(text: string, contentType: string | undefined): JsonNode | undefined {
  if (!contentType?.includes('json') && !/^[[{]/.test(text.trimStart())) return undefined
  try {
    return parseJsonTree(text, {nonFinite: false})
  } catch {
    return undefined
  }
}

/** An object's member; the last of a key given twice, as JSON.parse reads it. */
function member(node: JsonNode, key: string): JsonNode | undefined {
  if (node.kind !== 'object') return undefined
  return node.members.findLast(([k]) => k === key)?.[1]
}
