// Kept here for the sink's import: the wait lives in shared/io.
export { abortableSleep } from '../../shared/io/sleep.ts';
