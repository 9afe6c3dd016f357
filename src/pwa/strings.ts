import type { Language } from '../../page-worker/language.ts';

// The words of the install and update UI in the app's two languages (A7). The app passes
// its language; the update banner, which runs outside the app's tree, follows <html lang>.

export const PWA_STRINGS = {
  en: {
    updateMessage: 'New version available.',
    reload: 'Reload',
    coachTitle: 'Install the app to get notifications',
    coachStep1: 'Tap the Share button in Safari.',
    coachStep2: 'Choose “Add to Home Screen”.',
    coachStep3: 'Open dsh dispatch from the Home Screen and pair your machine there.',
    coachNote:
      'iPhone and iPad deliver notifications only to the installed app, and it keeps its own storage: machines paired here in Safari are not visible to it.',
  },
  zh: {
    updateMessage: '有新版本可用。',
    reload: '重新加载',
    coachTitle: '安装应用以接收通知',
    coachStep1: '点按 Safari 中的“共享”按钮。',
    coachStep2: '选择“添加到主屏幕”。',
    coachStep3: '从主屏幕打开 dsh dispatch，并在其中配对你的机器。',
    coachNote:
      'iPhone 和 iPad 只向已安装的应用发送通知，且它有独立的存储：在 Safari 中配对的机器在那里不可见。',
  },
} as const satisfies Record<Language, Record<string, string>>;
