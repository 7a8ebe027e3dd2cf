// relayWorkers: a Discovery or a stream of its items in, a cold Observable of plain status items out.
import { filter, type Observable } from 'rxjs';
import type { Discovery, RelayOptions, RelayStatus, RelayStatusUpdate } from '../src/index.js';
import { filterWorkers, relayWorkers } from '../src/index.js';
import type { RELAY_MARK } from '../src/index.js';
import { expectTrue, expectType, type Equal } from './expect.js';

declare const source: Discovery;
declare const target: Discovery;

expectType<Observable<RelayStatus>>()(relayWorkers(source, target));
expectType<Observable<RelayStatus>>()(relayWorkers(source.watch(), target, { advertiseHost: '10.0.0.7' }));
expectType<Observable<RelayStatus>>()(
  relayWorkers(source.events().pipe(filterWorkers((w) => w.tags.includes('gpu'))), target),
);
// @ts-expect-error the target must be a Discovery, not a stream
relayWorkers(source, target.events());
// @ts-expect-error options are checked
relayWorkers(source, target, { advertiseHost: 7 });
// @ts-expect-error unknown options are refused
relayWorkers(source, target, { advertize: '10.0.0.7' });

// The status items narrow on `type`.
relayWorkers(source, target)
  .pipe(filter((item): item is RelayStatusUpdate => item.type === 'relay-status'))
  .subscribe((status) => {
    expectType<'up' | 'down'>()(status.target);
    expectType<number>()(status.relayed);
  });
declare const item: RelayStatus;
if (item.type === 'relay-skipped') expectTrue<Equal<typeof item.reason, string>>();

expectTrue<Equal<typeof RELAY_MARK, 'woolrx-relay'>>();
expectTrue<Equal<RelayOptions['id'], string | undefined>>();
