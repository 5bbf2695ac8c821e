/**
 * The prompts bk asks with, each from its own package: a bundle then holds these four and not
 * the rest of @inquirer/prompts (its editor prompt alone brings half a megabyte of character-set
 * tables). Import this module lazily: only a terminal session that asks something needs it.
 */
export {default as confirm} from '@inquirer/confirm'
export {default as input} from '@inquirer/input'
export {default as password} from '@inquirer/password'
export {default as select} from '@inquirer/select'
