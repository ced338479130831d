import { render } from 'preact';
import '../common/base.css';
import './gate.css';
import { GateApp } from './app';

render(<GateApp />, document.getElementById('app')!);
