/** Every query of the reports collection. */
import { conflict } from '../../platform/errors/api-error.js';
import type { CursorPosition } from '../../platform/api/page-cursor.js';
import { randomId } from '../../platform/random/random-id.js';
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';
import { newestFirstPage } from '../../platform/store/newest-first-page.js';
import type { NewestFirstPage } from '../../platform/store/newest-first-page.js';
import { DUPLICATE_INDEX, REPORTS } from './report.js';
import type { Resolution, StoredReport } from './report.js';

export type NewReport = Omit<StoredReport, '_id' | 'status' | 'createdAt'>;

export class ReportRepository {
  private readonly reports: Collection<StoredReport>;

  constructor(store: DocumentStore) {
    this.reports = store.collection<StoredReport>(REPORTS);
  }

  /** Records an open report; `409 CONFLICT` when the reporter already reported the same subject. */
  async add(report: NewReport): Promise<StoredReport> {
    const stored: StoredReport = {
      ...report,
      _id: randomId(16),
      status: 'open',
      createdAt: new Date(),
    };
    try {
      await this.reports.insertOne(stored);
    } catch (error) {
      if (error instanceof DuplicateKeyError && error.index === DUPLICATE_INDEX)
        throw conflict('You have already reported this');
      throw error;
    }
    return stored;
  }

  page(
    status: StoredReport['status'] | undefined,
    limit: number,
    after: CursorPosition | undefined,
  ): Promise<NewestFirstPage<StoredReport>> {
    return newestFirstPage(this.reports, status ? { status } : {}, 'createdAt', limit, after);
  }

  find(reportId: string): Promise<StoredReport | null> {
    return this.reports.findOne({ _id: reportId });
  }

  /** Resolves an open report; null when it is not open (resolved already, or unknown). */
  async resolve(
    reportId: string,
    resolution: { resolution: Resolution; resolvedBy: string; note: string },
  ): Promise<StoredReport | null> {
    const resolved = await this.reports.findOneAndUpdate(
      { _id: reportId, status: 'open' },
      { $set: { status: 'resolved', resolvedAt: new Date(), ...resolution } },
      { returnDocument: 'after' },
    );
    // A resolved account report no longer stops its reporter from reporting the account again.
    if (resolved?.kind === 'account')
      await this.reports.updateOne({ _id: reportId }, { $unset: { duplicateKey: '' } });
    return resolved;
  }

  /** Re-addresses the reports an account filed and those about it (an account move). */
  async moveAccount(from: string, to: string): Promise<void> {
    await this.reports.updateMany({ reporterAddress: from }, { $set: { reporterAddress: to } });
    await this.reports.updateMany({ reportedAddress: from }, { $set: { reportedAddress: to } });
  }

  /** Removes the reports an account filed and those about it (an account deletion). */
  async removeAccount(address: string): Promise<void> {
    await this.reports.deleteMany({ reporterAddress: address });
    await this.reports.deleteMany({ reportedAddress: address });
  }
}
