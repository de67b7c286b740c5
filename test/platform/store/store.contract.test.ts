import { forEachStore } from '../../support/stores-under-test.js';
import { describeStoreContract } from './store-contract.js';

forEachStore('store_contract', describeStoreContract);
