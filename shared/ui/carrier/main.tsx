import { render } from 'preact';
import '../common/base.css';
import './carrier.css';
import { session } from '../common/auth';
import { CarrierApp } from './app';
import { loadStart } from './data';

// Signed in from an earlier visit: what the first screen needs is asked for before it renders.
if (session.token()) loadStart().catch(() => undefined);
render(<CarrierApp />, document.getElementById('app')!);
